function (doc) {
  // Basic Obtain ALL (spec "Basic Obtain", rule 4): live resource data only, never tombstones,
  // documents marked deleted, or deletion documents (payload_placement "none"); the rule is
  // src/domain/resource-document.ts (isLive), and a drift test keeps the two equal. The key is unique
  // ([node_timestamp, doc_ID]) so pages continue from a keyset cursor.
  if (doc.doc_type === 'resource_data' && !doc.node_deleted && doc.payload_placement !== 'none' && typeof doc.node_timestamp === 'string') {
    emit([doc.node_timestamp, doc._id], null);
  }
}
