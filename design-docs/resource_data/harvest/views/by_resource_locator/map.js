function (doc) {
  // Basic Harvest getrecord and OAI-PMH GetRecord with by_resource_ID (spec "Basic Harvest
  // (JSON)", getrecord rule 3: every document whose resource locator matches, exact string
  // match). Deleted states are included (value 1) so they can be reported with status deleted.
  // The locator stays text, for one range read per locator; the reader keeps the rows whose
  // locator is exactly the one asked for (CouchDB's collation takes some other strings for equal).
  // @include lib/code-unit-key.js
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
