function (doc) {
  // Basic Obtain by_resource_ID (spec "Basic Obtain": request IDs as resource locators; how they
  // match is unspecified, this node matches the locator string exactly). Live documents only
  // (src/domain/resource-document.ts, isLive).
  if (doc.doc_type === 'resource_data' && !doc.node_deleted && doc.payload_placement !== 'none' && typeof doc.node_timestamp === 'string' && typeof doc.resource_locator === 'string') {
    emit([doc.resource_locator, doc.node_timestamp, doc._id], null);
  }
}
