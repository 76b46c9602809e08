/** Explicit wiring: repositories → services. No module singletons; tests build their own. */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Couch } from './storage/couch.js';
import type { DatabaseNames } from './storage/databases.js';
import { NodeRepository, followNodeDocuments } from './storage/node-repository.js';
import { FollowedDocuments } from './storage/followed-documents.js';
import { LeaseRepository } from './storage/lease-repository.js';
import { ResourceRepository } from './storage/resource-repository.js';
import { AccountRepository } from './storage/account-repository.js';
import { NodeInfoService } from './services/node-info/node-info.service.js';
import { PublishService } from './services/publish/publish.service.js';
import { DocumentChecks } from './services/intake/document-checks.js';
import { createPolicyReader } from './config/index.js';
import { KeyResolver } from './services/intake/key-resolver.js';
import { SignaturePool } from './domain/signature/signature-pool.js';
import { DeleteService } from './services/delete/delete.service.js';
import { ObtainService } from './services/obtain/obtain.service.js';
import { ObtainRepository } from './storage/obtain-repository.js';
import { SliceService } from './services/slice/slice.service.js';
import { SliceRepository } from './storage/slice-repository.js';
import { ViewReader } from './storage/view-reader.js';
import { ViewMaps } from './storage/view-maps.js';
import { DEFAULT_WARMER_OPTIONS, IndexWarmer, warmTargets } from './storage/index-warmer.js';
import { IndexPacer, StoreIndexLag } from './storage/index-pacer.js';
import type { DesignDocFile } from './storage/design-docs.js';
import { OAuth1Verifier } from './services/auth/oauth1.js';
import { OAuthNonces } from './storage/oauth-nonces.js';
import { ServiceSettings } from './services/service-settings.js';
import { HarvestService } from './services/harvest/harvest.service.js';
import { DEFAULT_READ_AHEAD, ReadAhead } from './storage/read-ahead.js';
import { HarvestRepository } from './storage/harvest-repository.js';
import { OaiPmhService } from './services/oai-pmh/oai-pmh.service.js';
import { MetadataSource } from './services/oai-pmh/metadata.js';
import { LinkedPayloads } from './services/oai-pmh/linked-payloads.js';
import { Authenticator } from './services/auth/authenticator.js';
import { Gate } from './http/gate.js';
import { authPagesOptions } from './services/auth/index.js';
import type { AuthPagesOptions } from './services/auth/auth.routes.js';
import { SwordService } from './services/sword/sword.service.js';
import { createEnvelopeValidator } from './validation/envelope-validator.js';
import { RequestSlots } from './http/request-slots.js';
import { compileDistributionFilter } from './domain/filters.js';
import { readFunctionSource } from './storage/design-docs.js';
import { createSafeFetcher } from './net/safe-fetch.js';
import type { Clock } from './domain/timestamps.js';
import { TokenCodec } from './domain/resumption-token.js';
import { OwnerPseudonyms } from './domain/ownership.js';
import { buildDistribution, type Distribution } from './services/distribute/wiring.js';
import { createPeerFetcher } from './services/distribute/peer-fetch.js';
import type { AppConfig } from './config/index.js';
import { PACING_BACKSTOP_FROM, type CorsOrigins } from './config/settings.js';
import { buildMonitoring, type Monitoring } from './services/monitoring/wiring.js';

export interface Deps {
  logger: Logger;
  publicUrl: string;
  /** COMPRESSION_LEVEL: the zlib level of compressed answers. */
  compressionLevel: number;
  /** Reverse proxies whose X-Forwarded-For the node believes (TRUST_PROXY; app.ts). */
  trustProxy: number;
  /** CORS_ORIGINS: which web pages of other origins may read the public read services (http/cross-origin.ts). */
  corsOrigins: CorsOrigins;
  /** Where the XML schemas served at /schemas/ are (the OAI-PMH extension schema: oaiSchemaDir). */
  schemaDir: string;
  settings: ServiceSettings;
  gate: Gate;
  /** HEAVY_REQUEST_LIMIT: list pages and publish batches handled at once (http/request-slots.ts). */
  heavySlots: RequestSlots;
  authPages: AuthPagesOptions;
  nodeInfo: NodeInfoService;
  publish: PublishService;
  sword: SwordService;
  remove: DeleteService;
  slice: SliceService;
  obtain: ObtainService;
  harvest: HarvestService;
  oaiPmh: OaiPmhService;
  nodes: NodeRepository;
  resources: ResourceRepository;
  distribution: Distribution;
  monitoring: Monitoring;
  /** The _changes feeds that keep the per-request documents in memory; stopped when the node closes. */
  followed: FollowedDocuments[];
  /** Proxy signing and signature verification, off the event loop (closed with the node). */
  signatures: SignaturePool;
  /** Keeps the resource_data indexes current (started by the runtime when INDEX_WARMING is on). */
  warmer: IndexWarmer;
  /** Holds publish answers for the indexes (PUBLISH_MAX_INDEX_LAG); released when the node stops. */
  pacing: IndexPacer | undefined;
}

export interface DepsInput {
  config: AppConfig;
  logger: Logger;
  couch: Couch;
  names: DatabaseNames;
  publicUrl: string;
  projectRoot: string;
  tokenSecret: string;
  /** The design docs as pushed to the store (their map functions also run in the node: view-maps.ts). */
  designDocs: DesignDocFile[];
  clock?: Clock;
  /** The supervisor of the embedded store this process started (its restarts are a metric). */
  store?: { readonly restartCount: number } | undefined;
}

/**
 * The XML schemas /schemas/ serves, the OAI-PMH extension schema every OAI-PMH answer's
 * xsi:schemaLocation names among them. Kept in src/ (tsc copies no .xsd), which the installation
 * ships. Checked here, so an incomplete installation stops at start rather than answering 404
 * for a schema each response points to (it was probed at import and fell back to nothing).
 */
function oaiSchemaDir(projectRoot: string): string {
  const dir = path.join(projectRoot, 'src', 'protocol', 'oai-pmh', 'schemas');
  if (!fs.existsSync(path.join(dir, 'OAI-PMH-LR.xsd'))) throw new Error(`the OAI-PMH extension schema is missing from ${dir}: the installation is incomplete`);
  return dir;
}

/** How often a held publish asks the store how far its indexes trail (one probe shared by the held requests). */
const PACING_PROBE_MS = 100;

/**
 * From PACING_BACKSTOP_FROM (config/settings.ts) on, PUBLISH_MAX_INDEX_LAG is a backstop rather
 * than a pace (as its default is): publishing runs at the store's speed until the indexes trail that
 * far. The warmer keeps its quiet rule instead of passing beside every write (which would take
 * CPU from the writes a backstop lets through) until a request is held, then passes beside the
 * writes while requests are held. A figure under a second old and at most half the limit admits
 * a request without asking the store again, except while a load is caught up to
 * PUBLISH_CATCH_UP_INDEX_LAG, where every request asks (index-pacer.ts).
 * Below it the limit paces every write, measured with eager passes (README "After a bulk publish").
 */
const BACKSTOP_FIGURE_REUSE_MS = 1000;
/** While requests are held at a backstop, the warmer passes beside the writes, for this long after the last hold. */
const BACKSTOP_HURRY_MS = 10_000;

/** Limits for every URL fetched on behalf of a document (key locations, linked payloads). */
const FETCH_LIMITS = { timeoutMs: 5000, maxBytes: 1024 * 1024 };

/**
 * The linked payloads OAI-PMH keeps (src/services/oai-pmh/linked-payloads.ts). 32 MiB holds at
 * least 16 of the largest (FETCH_LIMITS) and thousands of typical records of a few KB. A payload
 * is served as it was up to 10 minutes ago: long enough for a harvest's pages, its retries and
 * the GetRecords that follow, short enough that a changed payload is soon seen. A failure is kept
 * 30 s only: a record whose payload fails is left out of a list, so a server back up must be
 * fetched from again soon, while a dead one costs one fetch (up to the 5 s timeout) per 30 s,
 * not one per record of every page that names it.
 */
const LINKED_PAYLOAD_CACHE = { maxBytes: 32 * 1024 * 1024, ttlMs: 10 * 60_000, failureTtlMs: 30_000 };

export function buildDeps(input: DepsInput): Deps {
  const clock = input.clock ?? (() => new Date());
  const followed = { ...followNodeDocuments(input.couch, input.names, input.logger), accounts: new FollowedDocuments(input.couch, input.names.accounts, input.logger) };
  const nodes = new NodeRepository(input.couch, input.names, followed);
  const warmTargetList = warmTargets(input.designDocs, 'resource_data');
  const maxIndexLag = input.config.settings.publishMaxIndexLag;
  const backstop = maxIndexLag !== undefined && maxIndexLag >= PACING_BACKSTOP_FROM;
  const warmer = new IndexWarmer(input.couch, input.names.resourceData, warmTargetList, input.logger, { ...DEFAULT_WARMER_OPTIONS, eager: maxIndexLag !== undefined && !backstop });
  const pacing = maxIndexLag === undefined ? undefined : new IndexPacer(
    new StoreIndexLag(input.couch, input.names.resourceData, warmTargetList.map((target) => target.ddoc)),
    {
      maxLag: maxIndexLag, maxWaitMs: input.config.settings.viewWaitMs, probeMs: PACING_PROBE_MS,
      ...(backstop ? { reuseRecentMs: BACKSTOP_FIGURE_REUSE_MS, onHeld: () => warmer.hurry(BACKSTOP_HURRY_MS) } : {}),
      // A pace below the backstop for the rest of a bulk load that met it (index-pacer.ts); a smaller limit paces every write itself.
      ...(backstop && input.config.settings.publishCatchUpIndexLag !== undefined ? {
        catchUpLag: input.config.settings.publishCatchUpIndexLag,
        onCatchUp: (catchingUp: boolean, lag: number) => input.logger.info({ lag }, catchingUp
          ? 'publishing paced to PUBLISH_CATCH_UP_INDEX_LAG: the indexes trail beyond PUBLISH_MAX_INDEX_LAG'
          : 'publishing at the store\'s speed again: the indexes have caught up'),
      } : {}),
    },
  );
  const views = new ViewReader(input.config.settings.viewWaitMs, {
    maps: new ViewMaps(input.designDocs, 'resource_data'), activity: warmer,
    // Read at call time: the metrics are built below, and the first read comes after start-up.
    onAnswer: (answer, because) => monitoring.metrics.rangeReads.inc({ answer, because: because ?? '' }),
    readAhead: input.config.settings.readAhead ? new ReadAhead(DEFAULT_READ_AHEAD, (outcome) => monitoring.metrics.readAheadPages.inc({ outcome })) : undefined,
  });
  const resources = new ResourceRepository(input.couch, input.names, views);
  const accounts = new AccountRepository(input.couch, input.names, followed.accounts);
  const fetchers = { public: createSafeFetcher({ allowPrivate: false, ...FETCH_LIMITS }), private: createSafeFetcher({ allowPrivate: true, ...FETCH_LIMITS }) };
  // A key location that did not answer is not asked again for 30 s, or for less than half the
  // wait before a parked document's next try, which must fetch again (parked-documents.ts).
  const unansweredForMs = Math.min(30_000, Math.floor(input.config.settings.incomingRetryMs / 2));
  const keys = new KeyResolver(nodes, (allowPrivate) => (allowPrivate ? fetchers.private : fetchers.public), input.logger, unansweredForMs);
  const signatures = new SignaturePool(input.config.settings.signatureWorkers);
  const checks = new DocumentChecks(createEnvelopeValidator(), compileDistributionFilter(readFunctionSource(path.join(input.projectRoot, 'design-docs'), 'resource_data/distribute/filters/live_for_destination.js')), keys, signatures, createPolicyReader());
  const settings = new ServiceSettings(nodes);
  const harvestStore = new HarvestRepository(input.couch, input.names, views);
  const tokens = new TokenCodec(input.tokenSecret);
  // Keyed by the same secret (HKDF, another label): every node process records the same owners.
  const owners = new OwnerPseudonyms(input.tokenSecret);
  const auth = new Authenticator(accounts, undefined, new OAuth1Verifier(accounts, new OAuthNonces(input.couch, input.names)));
  const gate = new Gate((header, client, request) => auth.identify(header, client, request), input.publicUrl);
  const monitoring = buildMonitoring({ couch: input.couch, names: input.names, views, nodes, resources, clock, projectRoot: input.projectRoot, nodeName: input.config.node.node.node_name, store: input.store });
  const publish = new PublishService({ nodes, store: resources, checks, publicUrl: input.publicUrl, clock, logger: input.logger.child({ component: 'publish' }), owners }, monitoring.metrics, signatures, pacing);
  const harvest = new HarvestService(harvestStore, settings, nodes, tokens, clock);
  // Read by /status through the node database's feed, written by distribution runs.
  const leases = new LeaseRepository(input.couch, input.names, followed.node);
  const heavySlots = new RequestSlots(input.config.settings.heavyRequestLimit, input.config.settings.viewWaitMs, () => monitoring.metrics.heavyRequestsRefused.inc());
  monitoring.metrics.watchHeavyRequests(() => heavySlots.busy);
  const linkedPayloads = new LinkedPayloads((allowPrivate) => (allowPrivate ? fetchers.private : fetchers.public), LINKED_PAYLOAD_CACHE);
  return {
    logger: input.logger,
    publicUrl: input.publicUrl,
    compressionLevel: input.config.settings.compressionLevel,
    trustProxy: input.config.settings.trustProxy,
    corsOrigins: input.config.settings.corsOrigins,
    schemaDir: oaiSchemaDir(input.projectRoot),
    settings,
    gate,
    heavySlots,
    authPages: authPagesOptions(input.config.settings, accounts, input.publicUrl, input.config.node.node.node_name),
    nodeInfo: new NodeInfoService(nodes, resources, leases, clock().toISOString(), input.publicUrl),
    publish,
    sword: new SwordService(accounts, nodes, settings, publish, input.publicUrl, clock),
    remove: new DeleteService(resources, clock, owners),
    slice: new SliceService(new SliceRepository(input.couch, input.names, views), tokens, clock),
    obtain: new ObtainService(new ObtainRepository(input.couch, input.names, views), resources, settings, tokens),
    harvest,
    oaiPmh: new OaiPmhService({ store: harvestStore, metadata: new MetadataSource(harvestStore, linkedPayloads), tokens, clock, logger: input.logger }, settings, nodes, input.publicUrl, harvest),
    nodes,
    resources,
    distribution: buildDistribution({
      couch: input.couch, names: input.names, views, nodes, resources, checks, logger: input.logger,
      publicUrl: input.publicUrl, clock, embedded: !input.config.settings.couchdbUrl, metrics: monitoring.metrics, settings, leases,
      peers: createPeerFetcher(), owners,
      parking: { firstRetryMs: input.config.settings.incomingRetryMs, lifetimeMs: input.config.settings.incomingRetryLifetimeMs },
    }),
    monitoring,
    followed: Object.values(followed),
    signatures,
    warmer,
    pacing,
  };
}
