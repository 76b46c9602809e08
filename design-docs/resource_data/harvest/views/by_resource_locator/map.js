function (doc) {
  // Basic Harvest getrecord and OAI-PMH GetRecord with by_resource_ID (spec "Basic Harvest
  // (JSON)", getrecord rule 3: every document whose resource locator matches, exact string
  // match). Deleted states are included (value 1) so they can be reported with status deleted.
  var deleted;
  if (typeof doc.resource_locator !== 'string' || typeof doc.node_timestamp !== 'string') return;
  if (doc.doc_type === 'resource_data') {
    deleted = doc.node_deleted || doc.payload_placement === 'none' ? 1 : 0;
  } else if (doc.doc_type === 'tombstone') {
    deleted = 1;
  } else {
    return;
  }
  emit([doc.resource_locator, doc.node_timestamp, doc._id], deleted);
}
