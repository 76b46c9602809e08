function (doc) {
  // Basic Harvest getrecord and OAI-PMH GetRecord with by_resource_ID (spec "Basic Harvest
  // (JSON)", getrecord rule 3: every document whose resource locator matches, exact string
  // match). Deleted states are included (value 1) so they can be reported with status deleted.
  // The locator stays text, for one range read per locator; the reader keeps the rows whose
  // locator is exactly the one asked for (CouchDB's collation takes some other strings for equal).
  // A 0.49.0 document may give several locators (an array: the LR schemas and their validation
  // cases): it is found by each of them.
  // @include lib/code-unit-key.js
  // @include lib/harvest-state.js
  var deleted, locators, i;
  locators = typeof doc.resource_locator === 'string' ? [doc.resource_locator] : doc.resource_locator;
  if (!Array.isArray(locators) || typeof doc.node_timestamp !== 'string') return;
  deleted = harvestState(doc);
  if (deleted === undefined) return;
  for (i = 0; i < locators.length; i++) {
    if (typeof locators[i] === 'string') emit([locators[i], doc.node_timestamp, key(doc._id)], deleted);
  }
}
