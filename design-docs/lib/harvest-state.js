// The harvest state of a stored document (isDeleted / isHarvestable, src/domain/resource-document.ts):
// 1 for a deleted record (marked by Basic Delete, a deletion document, a tombstone), 0 for a
// live one, undefined for what no harvest lists.
function harvestState(doc) {
  if (doc.doc_type === 'resource_data') return doc.node_deleted || doc.payload_placement === 'none' ? 1 : 0;
  if (doc.doc_type === 'tombstone') return 1;
  return undefined;
}
