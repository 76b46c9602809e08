function (doc) {
  // Basic Harvest listrecords/listidentifiers and OAI-PMH with the JSON metadataPrefix (spec
  // "Basic Harvest (JSON)", rules 4-5: selection by node_timestamp, inclusive range). Every
  // harvestable state is emitted: live resource data, documents marked by Basic Delete
  // (node_deleted), deletion documents (payload_placement "none") and tombstones; the value is
  // 1 for the deleted ones, so headers need no document and a "no" deleted-data policy can skip
  // them. The key [node_timestamp, key(doc_ID)] is unique, for keyset pages.
  // codeUnitKey (src/storage/view-keys.ts): text as 4 hex digits per UTF-16 unit, so a key
  // matches exactly and orders the same under CouchDB's ICU collation and the embedded store's.
  function key(text) {
    var out = '';
    for (var i = 0; i < text.length; i++) out += ('000' + text.charCodeAt(i).toString(16)).slice(-4);
    return out;
  }
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
