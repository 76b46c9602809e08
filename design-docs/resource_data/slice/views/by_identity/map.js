function (doc) {
  // Slice by identity (spec "Slice (optional)": matches submitter, curator, owner or signer),
  // keyed [key(identity lower-cased and trimmed), node_timestamp, key(doc_ID)], so identity + from/until is
  // one range query. Each distinct identity value is emitted once per document, so a document
  // whose submitter is also its owner is not returned twice. Live documents only, as in by_date;
  // key() is explained there.
  // @include lib/code-unit-key.js
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
