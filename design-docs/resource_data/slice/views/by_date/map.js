function (doc) {
  // Slice with no identity and no tags (spec "Slice (optional)"): every live resource data
  // document, keyed [node_timestamp, id_key]. Live (src/domain/resource-document.ts, isLive) means
  // doc_type resource_data, not marked by Basic Delete (a truthy node_deleted), not a deletion
  // document (payload_placement "none"), with a node_timestamp.
  // node_timestamp is fixed width, so string order is time order, and a "YYYY-MM-DD" key sorts
  // before every timestamp of that day: from/until are plain range bounds.
  // id_key is key(doc_ID), its UTF-16 units encoded (below): it collates the same under CouchDB's
  // ICU collation and under JavaScript string order, so the service can merge rows of several
  // ranges by (node_timestamp, doc_ID) and page by keyset without ever disagreeing with the view.
  // @include lib/code-unit-key.js
  if (doc.doc_type !== 'resource_data' || doc.node_deleted) return;
  if (doc.payload_placement === 'none' || typeof doc.node_timestamp !== 'string') return;
  emit([doc.node_timestamp, key(doc._id)], null);
}
