function (doc) {
  // Slice by identity (spec "Slice (optional)": matches submitter, curator, owner or signer),
  // keyed [key(identity lower-cased and trimmed), node_timestamp, key(doc_ID)], so identity + from/until is
  // one range query. Each distinct identity value is emitted once per document, so a document
  // whose submitter is also its owner is not returned twice. Live documents only, as in by_date;
  // key() is explained there.
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
  if (doc.doc_type !== 'resource_data' || doc.node_deleted) return;
  if (doc.payload_placement === 'none' || typeof doc.node_timestamp !== 'string') return;
  var identity = doc.identity;
  if (!identity || typeof identity !== 'object') return;
  var fields = ['submitter', 'curator', 'owner', 'signer'];
  var seen = {};
  for (var f = 0; f < fields.length; f++) {
    var value = identity[fields[f]];
    if (typeof value !== 'string') continue;
    var name = value.trim().toLowerCase();
    // The "$" prefix keeps names such as "__proto__" from touching the object's prototype.
    if (name.length === 0 || seen['$' + name]) continue;
    seen['$' + name] = true;
    emit([key(name), doc.node_timestamp, key(doc._id)], null);
  }
}
