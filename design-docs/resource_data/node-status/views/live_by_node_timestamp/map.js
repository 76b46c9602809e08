function (doc) {
  // Live resource data only, the rule of obtain/by_node_timestamp: not tombstones (doc_type
  // "tombstone", which is also what a replaced document becomes), not documents marked deleted by
  // Basic Delete (node_deleted), not deletion documents (payload_placement "none"). Keyed by
  // node_timestamp: total_rows is the live count for /status without a reduce, and the first key
  // is the earliest datestamp.
  if (doc.doc_type === 'resource_data' && !doc.node_deleted && doc.payload_placement !== 'none' && typeof doc.node_timestamp === 'string') {
    emit(doc.node_timestamp, null);
  }
}
