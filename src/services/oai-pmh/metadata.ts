/**
 * Metadata of one record by `payload_placement` (spec "OAI-PMH Harvest (XML)"): inline resource
 * data, the attached document, or the linked one fetched from its locator (linkedPayloadLocator) through
 * the SSRF-guarded fetcher (timeout, size cap; private addresses only when the node policy's
 * allow_private_fetch says so), kept a while by the process's cache (linked-payloads.ts). XML that
 * is not one well-formed element, or that OAI-PMH cannot carry, is a failure, which the caller
 * turns into cannotDisseminateFormat (GetRecord) or skips (both lists alike); data that is not
 * XML is served as it is (resourceDataElement).
 */
import { ConcurrencyLimit } from '../../domain/concurrency-limit.js';
import { XML_CHECK_FIELD } from '../../domain/node-private-fields.js';
import type { StoredDoc } from '../../storage/documents.js';
import { publicFetchFailure } from '../../net/fetch-failure.js';
import { resourceDataElement, type Fragment } from '../../protocol/oai-pmh/metadata-fragment.js';
import type { OaiMetadata } from '../../protocol/oai-pmh/response.js';
import { OAI_DC, oaiDcOf } from './oai-dc.js';
import type { HarvestRepository } from '../../storage/harvest-repository.js';
import type { LinkedPayloads } from './linked-payloads.js';

/** A live record's metadata as a response carries it, or why its fragment could not be emitted. */
export type RecordMetadata = { ok: true; metadata: OaiMetadata } | Extract<Fragment, { ok: false }>;

function recordMetadataOf(fragment: Fragment): RecordMetadata {
  return fragment.ok ? { ok: true, metadata: { xml: fragment.xml, ...(fragment.wrapped ? { wrapped: true as const } : {}) } } : fragment;
}

/**
 * Where a linked document's resource data is. Publish requires `payload_locator` of a linked
 * document, as the Learning Registry schemas and their validation cases do ("missing
 * payload_locator" is invalid), and offers `payload_schema_locator` in ListMetadataFormats as the
 * format's schema, which is what those schemas mean by it. The spec's field table names
 * `payload_schema_locator` as where linked data is fetched: it is used when a stored document
 * (one another implementation wrote) has no `payload_locator`. Fetching it where both are
 * given would emit a schema as the record.
 */
export function linkedPayloadLocator(doc: StoredDoc): string | undefined {
  for (const locator of [doc.payload_locator, doc.payload_schema_locator]) if (typeof locator === 'string' && locator !== '') return locator;
  return undefined;
}

export class MetadataSource {
  constructor(private readonly store: HarvestRepository, private readonly linked: LinkedPayloads) {}

  async emit(doc: StoredDoc, allowPrivate: boolean): Promise<Fragment> {
    switch (doc.payload_placement) {
      case 'inline':
        // Publish's check of this text, when it holds for it, saves parsing it again (XmlCheckRecord).
        return resourceDataElement(doc.resource_data, doc[XML_CHECK_FIELD]);
      case 'attachment': {
        const text = await this.store.firstAttachment(doc);
        return text === undefined ? { ok: false, reason: 'the document has no attachment' } : resourceDataElement(text);
      }
      case 'linked': {
        const locator = linkedPayloadLocator(doc);
        if (locator === undefined) return { ok: false, reason: 'the linked document has no payload_locator' };
        const fetched = await this.linked.fetchText(locator, allowPrivate);
        return fetched.ok ? resourceDataElement(fetched.text)
          : { ok: false, reason: `the linked resource data could not be fetched: ${publicFetchFailure(fetched)}`, detail: `${locator}: ${fetched.reason}` };
      }
      default:
        return { ok: false, reason: `payload_placement ${String(doc.payload_placement)} has no resource data` };
    }
  }

  /** The metadata of `doc` in format `prefix`: oai_dc is available for every document (oai-dc.ts). */
  async emitAs(doc: StoredDoc, prefix: string, allowPrivate: boolean): Promise<Fragment> {
    return prefix.toLowerCase() === OAI_DC ? oaiDcOf(doc, (d) => this.emit(d, allowPrivate)) : this.emit(doc, allowPrivate);
  }

  /**
   * The metadata of many records in format `prefix`, each in its record's place: undefined where
   * there is no document to emit (a deleted record: its header only). A few are emitted at a
   * time (linked payloads are network round trips).
   */
  async recordMetadata(docs: readonly (StoredDoc | undefined)[], prefix: string, allowPrivate: boolean, concurrency = 8): Promise<(RecordMetadata | undefined)[]> {
    const turns = new ConcurrencyLimit(concurrency);
    return Promise.all(docs.map(async (doc) => doc && recordMetadataOf(await turns.run(() => this.emitAs(doc, prefix, allowPrivate)))));
  }
}
