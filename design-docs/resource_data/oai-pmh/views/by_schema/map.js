function (doc) {
  // OAI-PMH ListRecords/ListIdentifiers by metadataPrefix (spec "OAI-PMH Harvest (XML)":
  // documents whose payload_schema does not match are skipped; deleted status is reported only
  // for documents that match the format). One row per distinct lower-cased payload_schema entry,
  // key [key(schema), node_timestamp, key(doc_ID)], so one format is one range read, and the distinct
  // formats (ListMetadataFormats) are found by skipping from key to key. Value 1 = deleted
  // (marked by Basic Delete, a deletion document, or a tombstone, which keeps payload_schema).
  // @include lib/code-unit-key.js
  var deleted, seen = {}, s, schema;
  if (typeof doc.node_timestamp !== 'string' || typeof doc._id !== 'string') return;
  if (Object.prototype.toString.call(doc.payload_schema) !== '[object Array]') return;
  if (doc.doc_type === 'resource_data') {
    deleted = doc.node_deleted || doc.payload_placement === 'none' ? 1 : 0;
  } else if (doc.doc_type === 'tombstone') {
    deleted = 1;
  } else {
    return;
  }
  for (s = 0; s < doc.payload_schema.length; s++) {
    schema = doc.payload_schema[s];
    if (typeof schema !== 'string' || schema === '') continue;
    schema = schema.toLowerCase();
    // The "$" prefix keeps a schema such as "__proto__" from touching the object's prototype.
    if (seen['$' + schema]) continue;
    seen['$' + schema] = true;
    emit([key(schema), doc.node_timestamp, key(doc._id)], deleted);
  }
}
