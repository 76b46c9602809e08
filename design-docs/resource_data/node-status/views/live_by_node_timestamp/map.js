function (doc) {
  // Live resource data only: not tombstones (doc_type "tombstone"), not documents marked deleted
  // by Basic Delete (node_deleted). Keyed by node_timestamp: total_rows is the live count for
  // /status without a reduce, and the first key is the earliest datestamp.
  if (doc.doc_type === 'resource_data' && !doc.node_deleted && typeof doc.node_timestamp === 'string') {
    emit(doc.node_timestamp, null);
  }
}
