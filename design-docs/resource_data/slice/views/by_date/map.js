function (doc) {
  // Slice with no identity and no tags (spec "Slice (optional)"): every live resource data
  // document, keyed [node_timestamp, id_key]. Live (src/domain/resource-document.ts, isLive) means
  // doc_type resource_data, not marked by Basic Delete (a truthy node_deleted), not a deletion
  // document (payload_placement "none"), with a node_timestamp.
  // node_timestamp is fixed width, so string order is time order, and a "YYYY-MM-DD" key sorts
  // before every timestamp of that day: from/until are plain range bounds.
  // id_key is key(doc_ID), 4 hex digits per UTF-16 unit: it collates the same under CouchDB's
  // ICU collation and under JavaScript string order, so the service can merge rows of several
  // ranges by (node_timestamp, doc_ID) and page by keyset without ever disagreeing with the view.
  // codeUnitKey (src/storage/view-keys.ts): text as 4 hex digits per UTF-16 unit, so a key
  // matches exactly and orders the same under CouchDB's ICU collation and the embedded store's.
  function key(text) {
    var out = '';
    for (var i = 0; i < text.length; i++) out += ('000' + text.charCodeAt(i).toString(16)).slice(-4);
    return out;
  }
  if (doc.doc_type !== 'resource_data' || doc.node_deleted) return;
  if (doc.payload_placement === 'none' || typeof doc.node_timestamp !== 'string') return;
  emit([doc.node_timestamp, key(doc._id)], null);
}
