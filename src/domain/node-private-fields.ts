/**
 * Fields a node keeps for itself on the resource documents it stores: never served (publicForm),
 * never hashed for LR-PGP (signature/canonical-hash.ts), and never taken from a publisher or a
 * peer (withoutNodePrivateFields), so only this node's own code ever sets them.
 */
import { OWNER_FIELD } from './ownership.js';

/**
 * What publish's check of inline XML resource data found (src/protocol/oai-pmh/metadata-fragment.ts,
 * XmlCheckRecord), so that OAI-PMH emission does not parse the same text again at every harvest.
 */
export const XML_CHECK_FIELD = 'node_xml_checked';

export const NODE_PRIVATE_FIELDS: readonly string[] = [OWNER_FIELD, XML_CHECK_FIELD];
