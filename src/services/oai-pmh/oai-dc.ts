/**
 * oai_dc for every record (OAI-PMH 2.0 §3.4: "all repositories must support" unqualified Dublin
 * Core for every item; spec "OAI-PMH Harvest (XML)": the service MAY translate). A record
 * whose payload is oai_dc is emitted as it is when it is an oai_dc record (or not at all when its
 * emission fails), and from its DC elements when it is not; nsdl_dc and IEEE LOM XML, and LRMI/schema.org
 * JSON, are crosswalked (src/protocol/oai-pmh/crosswalks/); anything else, or a payload that
 * yields no DC, gets the minimal record built from the envelope. The document's
 * resource_locator is always one of the identifiers.
 */
import type { StoredDoc } from '../../storage/documents.js';
import type { Fragment } from '../../protocol/oai-pmh/metadata-fragment.js';
import { addValues, isEmpty, oaiDcXml, type DcRecord } from '../../protocol/oai-pmh/crosswalks/oai-dc.js';
import { dcFromDcXml, dcFromLom, LOM_NS } from '../../protocol/oai-pmh/crosswalks/xml-crosswalks.js';
import { dcFromEnvelope, dcFromLrmi } from '../../protocol/oai-pmh/crosswalks/json-crosswalks.js';
import { hasFormat } from '../../domain/payload-formats.js';
import { isOaiDcRecord } from '../../protocol/oai-pmh/oai-dc-shape.js';

export const OAI_DC = 'oai_dc';

async function crosswalked(doc: StoredDoc, payload: (doc: StoredDoc) => Promise<Fragment>): Promise<DcRecord | undefined> {
  if (doc.payload_placement === 'inline' && typeof doc.resource_data === 'object' && doc.resource_data !== null) return dcFromLrmi(doc.resource_data);
  const fragment = await payload(doc);
  if (!fragment.ok || fragment.wrapped) return undefined;
  return fragment.xml.includes(LOM_NS) ? dcFromLom(fragment.xml) ?? dcFromDcXml(fragment.xml) : dcFromDcXml(fragment.xml);
}

/**
 * Whether an emitted fragment is an oai_dc record. One not known to be (Fragment's `oaiDc`) is
 * parsed again (oai-dc-shape.ts): a payload said to be oai_dc that is not, which is rare, or one
 * whose check record was written before the check noted it.
 */
function isOaiDc(fragment: Extract<Fragment, { ok: true }>): boolean {
  if (fragment.oaiDc) return true;
  return !fragment.wrapped && isOaiDcRecord(fragment.xml);
}

/** `payload` emits the document's own payload as an XML fragment (MetadataSource.emit). */
export async function oaiDcOf(doc: StoredDoc, payload: (doc: StoredDoc) => Promise<Fragment>): Promise<Fragment> {
  let record: DcRecord | undefined;
  if (hasFormat(doc, OAI_DC)) {
    // Its own oai_dc payload, or the failure to emit it (cannotDisseminateFormat, left out of lists).
    const own = await payload(doc);
    if (!own.ok || isOaiDc(own)) return own;
    // Said to be oai_dc and not an oai_dc record (another root, an element DC does not have):
    // served as it is, it made every response holding it invalid against OAI-PMH.xsd. Its DC
    // elements are taken as from any DC-bearing payload.
    record = own.wrapped ? undefined : dcFromDcXml(own.xml);
  } else {
    record = await crosswalked(doc, payload);
  }
  if (!record || isEmpty(record)) record = dcFromEnvelope(doc);
  else addValues(record, 'identifier', [doc.resource_locator].flat());
  return { ok: true, xml: oaiDcXml(record) };
}
