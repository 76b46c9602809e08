function (doc) {
  // Basic Harvest listrecords/listidentifiers and OAI-PMH with the JSON metadataPrefix (spec
  // "Basic Harvest (JSON)", rules 4-5: selection by node_timestamp, inclusive range). Every
  // harvestable state is emitted: live resource data, documents marked by Basic Delete
  // (node_deleted), deletion documents (payload_placement "none") and tombstones; the value is
  // 1 for the deleted ones, so headers need no document and a "no" deleted-data policy can skip
  // them. The key [node_timestamp, key(doc_ID)] is unique, for keyset pages.
  // @include lib/code-unit-key.js
  // @include lib/harvest-state.js
  var deleted;
  if (typeof doc.node_timestamp !== 'string' || typeof doc._id !== 'string') return;
  deleted = harvestState(doc);
  if (deleted === undefined) return;
  emit([doc.node_timestamp, key(doc._id)], deleted);
}
