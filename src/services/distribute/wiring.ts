/** Distribution's objects, built once per node process (src/deps.ts) and started by src/runtime.ts. */
import type { Logger } from 'pino';
import type { Couch } from '../../storage/couch.js';
import type { DatabaseNames } from '../../storage/databases.js';
import type { ViewReader } from '../../storage/view-reader.js';
import type { NodeRepository } from '../../storage/node-repository.js';
import type { ResourceRepository } from '../../storage/resource-repository.js';
import { DistributionRepository, replicationSource } from '../../storage/distribution-outbound.js';
import { IncomingRepository } from '../../storage/distribution-incoming.js';
import { IncomingForwarder } from '../../storage/distribution-proxy.js';
import { INCOMING_LEASE, type LeaseRepository } from '../../storage/lease-repository.js';
import type { DocumentChecks } from '../intake/document-checks.js';
import type { Clock } from '../../domain/timestamps.js';
import { IncomingFollower } from './incoming-follower.js';
import { FollowerLease } from './follower-lease.js';
import { DistributeService } from './distribute.service.js';
import { DestinationService } from './destination.service.js';
import { InboundService } from './inbound.service.js';
import { InboundReceiver } from './inbound-receiver.js';
import { DistributionScheduler } from './scheduler.js';
import { ParkedRepository } from '../../storage/distribution-parked.js';
import { ParkedDocuments, type ParkingPolicy } from './parked-documents.js';
import { ParkedRetrier } from './parked-retrier.js';
import type { ServiceSettings } from '../service-settings.js';
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import type { SafeFetcher } from '../../net/safe-fetch.js';
import type { OwnerPseudonyms } from '../../domain/ownership.js';

export interface Distribution {
  service: DistributeService;
  destination: DestinationService;
  inbound: InboundService;
  forwarder: IncomingForwarder;
  receiver: InboundReceiver;
  repository: DistributionRepository;
  follower: IncomingFollower;
  scheduler: DistributionScheduler;
  /** Arrived documents whose refusal may pass, kept and tried again. */
  parked: ParkedDocuments;
  retrier: ParkedRetrier;
}

export interface DistributionInput {
  couch: Couch;
  names: DatabaseNames;
  /** Bounded view reads (storage/view-reader.ts). */
  views: ViewReader;
  nodes: NodeRepository;
  resources: ResourceRepository;
  checks: DocumentChecks;
  logger: Logger;
  publicUrl: string;
  clock: Clock;
  /** true when the node runs its embedded store (no COUCHDB_URL). */
  embedded: boolean;
  metrics: NodeMetrics;
  /** The service descriptions: a distribution service marked inactive does not run (its description says so). */
  settings: ServiceSettings;
  /** The leases in the node database: a run holds one, so that runs never overlap across node processes. */
  leases: LeaseRepository;
  /** Asks the destinations (peer-fetch.ts: createPeerFetcher). */
  peers: SafeFetcher;
  /** When documents whose refusal may pass are tried again (settings INCOMING_RETRY_MS, INCOMING_RETRY_LIFETIME_MS). */
  parking: ParkingPolicy;
  /** Recorded owners (domain/ownership.ts), which an arriving original is compared by against an advance tombstone. */
  owners: OwnerPseudonyms;
}

export function buildDistribution(input: DistributionInput): Distribution {
  const logger = input.logger.child({ component: 'distribution' });
  const repository = new DistributionRepository(input.couch, input.names, replicationSource(input.couch, input.names, input.embedded), input.nodes, input.views, !input.embedded);
  const inbound = new InboundService({ nodes: input.nodes, store: input.resources, checks: input.checks, publicUrl: input.publicUrl, clock: input.clock, logger, owners: input.owners });
  const parked = new ParkedDocuments(new ParkedRepository(input.couch, input.names), input.parking, input.clock, logger);
  const receiver = new InboundReceiver(inbound, repository, input.metrics, logger, parked);
  const service = new DistributeService(input.nodes, repository, logger, input.leases, input.metrics, input.settings, input.peers, input.clock);
  return {
    service,
    destination: new DestinationService(input.nodes, input.publicUrl),
    inbound,
    forwarder: new IncomingForwarder(input.couch, input.names),
    receiver,
    repository,
    // One process at a time follows the incoming database where several may share the store.
    follower: new IncomingFollower(new IncomingRepository(input.couch, input.names), receiver, logger, {}, input.embedded ? undefined : new FollowerLease(input.leases, INCOMING_LEASE, logger)),
    scheduler: new DistributionScheduler(input.nodes, () => service.distribute(), logger),
    parked,
    // A check at least every 30 s: a document waits at most that long past its time.
    retrier: new ParkedRetrier(parked, receiver, logger, { checkEveryMs: Math.min(30_000, input.parking.firstRetryMs) }),
  };
}
