function (doc) {
  // Slice by any_tags (spec "Slice (optional)": matches a value in keys), keyed
  // [tag lower-cased and trimmed, node_timestamp, id_key], so one tag + from/until is one range
  // query; several tags are merged by the service. Each distinct tag once per document (keys
  // often repeat a value). Live documents only, as in by_date; id_key is explained there.
  if (doc.doc_type !== 'resource_data' || doc.node_deleted) return;
  if (doc.payload_placement === 'none' || typeof doc.node_timestamp !== 'string') return;
  if (!Array.isArray(doc.keys)) return;
  var idKey = '';
  for (var i = 0; i < doc._id.length; i++) idKey += ('000' + doc._id.charCodeAt(i).toString(16)).slice(-4);
  var seen = {};
  for (var k = 0; k < doc.keys.length; k++) {
    if (typeof doc.keys[k] !== 'string') continue;
    var tag = doc.keys[k].trim().toLowerCase();
    // The "$" prefix keeps tags such as "__proto__" from touching the object's prototype.
    if (tag.length === 0 || seen['$' + tag]) continue;
    seen['$' + tag] = true;
    emit([tag, doc.node_timestamp, idKey], null);
  }
}
