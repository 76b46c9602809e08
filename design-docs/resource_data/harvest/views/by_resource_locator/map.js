function (doc) {
  // Basic Harvest getrecord and OAI-PMH GetRecord with by_resource_ID (spec "Basic Harvest
  // (JSON)", getrecord rule 3: every document whose resource locator matches, exact string
  // match). Deleted states are included (value 1) so they can be reported with status deleted.
  // The locator stays text, for one range read per locator; the reader keeps the rows whose
  // locator is exactly the one asked for (CouchDB's collation takes some other strings for equal).
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
  if (typeof doc.resource_locator !== 'string' || typeof doc.node_timestamp !== 'string') return;
  if (doc.doc_type === 'resource_data') {
    deleted = doc.node_deleted || doc.payload_placement === 'none' ? 1 : 0;
  } else if (doc.doc_type === 'tombstone') {
    deleted = 1;
  } else {
    return;
  }
  emit([doc.resource_locator, doc.node_timestamp, key(doc._id)], deleted);
}
