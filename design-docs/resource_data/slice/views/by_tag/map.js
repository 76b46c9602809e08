function (doc) {
  // Slice by any_tags (spec "Slice (optional)": matches a value in keys), keyed
  // [key(tag lower-cased and trimmed), node_timestamp, key(doc_ID)], so one tag + from/until is one range
  // query; several tags are merged by the service. Each distinct tag once per document (keys
  // often repeat a value). Live documents only, as in by_date; key() is explained there.
  // @include lib/code-unit-key.js
  if (doc.doc_type !== 'resource_data' || doc.node_deleted) return;
  if (doc.payload_placement === 'none' || typeof doc.node_timestamp !== 'string') return;
  if (!Array.isArray(doc.keys)) return;
  var seen = {};
  for (var k = 0; k < doc.keys.length; k++) {
    if (typeof doc.keys[k] !== 'string') continue;
    var tag = doc.keys[k].trim().toLowerCase();
    // The "$" prefix keeps tags such as "__proto__" from touching the object's prototype.
    if (tag.length === 0 || seen['$' + tag]) continue;
    seen['$' + tag] = true;
    emit([key(tag), doc.node_timestamp, key(doc._id)], null);
  }
}
