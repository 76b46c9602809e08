function (doc) {
  // Basic Harvest listrecords/listidentifiers and OAI-PMH with the JSON metadataPrefix (spec
  // "Basic Harvest (JSON)", rules 4-5: selection by node_timestamp, inclusive range). Every
  // harvestable state is emitted: live resource data, documents marked by Basic Delete
  // (node_deleted), deletion documents (payload_placement "none") and tombstones; the value is
  // 1 for the deleted ones, so headers need no document and a "no" deleted-data policy can skip
  // them. The key [node_timestamp, key(doc_ID)] is unique, for keyset pages.
  // @include lib/code-unit-key.js
  var deleted;
  if (typeof doc.node_timestamp !== 'string' || typeof doc._id !== 'string') return;
  if (doc.doc_type === 'resource_data') {
    deleted = doc.node_deleted || doc.payload_placement === 'none' ? 1 : 0;
  } else if (doc.doc_type === 'tombstone') {
    deleted = 1;
  } else {
    return;
  }
  emit([doc.node_timestamp, key(doc._id)], deleted);
}
