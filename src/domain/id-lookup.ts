/**
 * Which lookup the spec's pair of flags asks for: `by_doc_ID` (default FALSE) and `by_resource_ID`
 * (default TRUE) of Basic Obtain, Basic Harvest getrecord and OAI-PMH GetRecord (spec "Basic
 * Obtain" argument table; "Basic Harvest (JSON)" path table; "OAI-PMH Harvest (XML)" verb table).
 * Both true is an error, which each service reports in its own form before asking this.
 *
 * - `by_doc_ID` true: the IDs are doc_IDs.
 * - `by_resource_ID` false, `by_doc_ID` false or absent (its default): both flags are false, and
 *   the client has said the IDs are not resource locators; the one other kind of ID is the doc_ID.
 * - any other flag sent (`by_doc_ID=F` alone leaves `by_resource_ID` at its default, TRUE): the
 *   IDs are resource locators.
 * - neither sent: `default`, which each service reads (obtain: resource locators, the spec's
 *   default; getrecord: a resource locator, then a doc_ID, for standard OAI-PMH harvesters).
 */
export type IdLookup = 'doc_ID' | 'resource_locator' | 'default';

/**
 * The longest doc_ID and resource locator a node stores: what Basic Obtain looks up by default
 * (its service_data.id_length_limit). Longer ones were stored and could never be obtained by ID,
 * and a SWORD receipt's Location pointed at an obtain URL that failed (an audit's finding,
 * session 34). Stated in the publishing services' descriptions (spec "Limits").
 */
export const MAX_ID_LENGTH = 8192;

export function idLookupOf(byDocId: boolean | undefined, byResourceId: boolean | undefined): IdLookup {
  if (byDocId === true || byResourceId === false) return 'doc_ID';
  if (byDocId === undefined && byResourceId === undefined) return 'default';
  return 'resource_locator';
}
