/**
 * The resource database's views: one design doc, `_design/access`, holds every view the access
 * services read, each named after its reader (design-docs/resource_data/access/README.md says why
 * one: CouchDB indexes a design doc in one pass, and five passes took 2.2 times as long).
 */
export const ACCESS_DESIGN_DOC = 'access';

export const ACCESS_VIEWS = [
  'obtain_by_node_timestamp', 'obtain_by_resource_locator',
  'harvest_by_node_timestamp', 'harvest_by_resource_locator', 'oai_pmh_by_schema',
  'slice_by_date', 'slice_by_identity', 'slice_by_tag',
] as const;

export type AccessView = (typeof ACCESS_VIEWS)[number];
