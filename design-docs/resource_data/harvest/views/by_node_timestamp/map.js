function (doc) {
  // Basic Harvest listrecords/listidentifiers and OAI-PMH with the JSON metadataPrefix (spec
  // "Basic Harvest (JSON)", rules 4-5: selection by node_timestamp, inclusive range). Every
  // harvestable state is emitted: live resource data, documents marked by Basic Delete
  // (node_deleted), deletion documents (payload_placement "none") and tombstones; the value is
  // 1 for the deleted ones, so headers need no document and a "no" deleted-data policy can skip
  // them. The key [node_timestamp, key(doc_ID)] is unique, for keyset pages.
  // codeUnitKey (src/storage/view-keys.ts): each UTF-16 unit as digits and lower-case letters,
  // in code-unit order, so a key matches exactly and orders the same under CouchDB's ICU
  // collation and the embedded store's.
  function key(text) {
    var out = '', unit, i, symbols = '0123456789abcdefghijklmnopqrstuvwxyz';
    for (i = 0; i < text.length; i++) {
      unit = text.charCodeAt(i);
      if (unit >= 48 && unit <= 57) out += symbols.charAt(unit - 47);
      else if (unit >= 97 && unit <= 119) out += symbols.charAt(unit - 85);
      else if (unit < 48) out += '0' + ('0' + unit.toString(16)).slice(-2);
      else if (unit < 97) out += 'b' + unit.toString(16);
      else out += 'z' + ('000' + unit.toString(16)).slice(-4);
    }
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
