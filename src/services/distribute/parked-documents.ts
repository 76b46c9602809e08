/**
 * What becomes of an arrived document whose refusal may pass (inbound.service.ts, `transient`: a
 * signer's key location did not answer, the store refused the write): it is parked
 * (src/storage/distribution-parked.ts) and tried again later, as a mail server keeps a message
 * it could not deliver, instead of being refused for good. Neither CouchDB's replicator nor
 * PouchDB's sends a document again once told it was written or refused, so a refusal was the end
 * of it at this node until its publisher changed it.
 *
 * The tries back off: the first again after `firstRetryMs`, each later one twice as long after the
 * one before, up to an hour (or `firstRetryMs` when that is longer); after `lifetimeMs` from the
 * first parking the document is given up, logged and counted as refused. A try that decides the
 * document (stored, a duplicate, refused for a reason that will not pass) ends its parking.
 */
import type { Logger } from 'pino';
import { compareTimestamps, type Clock } from '../../domain/timestamps.js';
import { publicForm } from '../../domain/resource-document.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { HeldParkedDocument, ParkedDocument, ParkedRepository } from '../../storage/distribution-parked.js';
import type { InboundResult, Rejection } from './inbound.service.js';

export interface ParkingPolicy {
  /** Wait before the first try again, in ms. */
  firstRetryMs: number;
  /** How long after the first parking a document is still tried, in ms. */
  lifetimeMs: number;
}

const LONGEST_WAIT_MS = 60 * 60 * 1000;
/** How long a claimed page is this process's to try (parked-retrier.ts tries one page at a time; a try fetches keys for at most 5 s each). */
const CLAIM_MS = 5 * 60 * 1000;

/** Whether `arriving` is a later version than `parked` by update_timestamp; without two comparable timestamps, the arrival is taken. */
function isNewer(arriving: Record<string, unknown>, parked: Record<string, unknown>): boolean {
  const order = compareTimestamps(arriving.update_timestamp, parked.update_timestamp);
  return order === undefined || order > 0;
}

/** What a try again decided: the documents to keep parked (with their new state) and those done with. */
export interface RetryOutcome { keep: HeldParkedDocument[]; done: HeldParkedDocument[]; gaveUp: Rejection[] }

export class ParkedDocuments {
  constructor(
    private readonly repository: ParkedRepository,
    private readonly policy: ParkingPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** When the try after `attempts` tries is due. */
  private nextAttempt(now: Date, attempts: number): string {
    const longest = Math.max(LONGEST_WAIT_MS, this.policy.firstRetryMs);
    const wait = Math.min(longest, this.policy.firstRetryMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
    return new Date(now.getTime() + wait).toISOString();
  }

  /**
   * Parks the refusals of a first arrival that may pass. Returns the refusals left: those that
   * will not pass, and any that could not be parked (the store failed: answered refused, as before).
   */
  async parkArrivals(rejected: Rejection[], arrived: Map<string, StoredDoc>): Promise<{ parked: number; left: Rejection[] }> {
    const candidates = rejected.filter((rejection) => rejection.transient === true && arrived.has(rejection.id));
    if (candidates.length === 0) return { parked: 0, left: rejected };
    const now = this.clock();
    // Only what inbound distribution reads of it (publicForm, and the id it arrived under): not the
    // source's node-private fields, nor its store members (a revision, attachment data).
    const documents: ParkedDocument[] = candidates.map((rejection) => ({
      id: rejection.id, doc: { ...publicForm(arrived.get(rejection.id) as StoredDoc), _id: rejection.id }, reason: rejection.error,
      first_parked: now.toISOString(), attempts: 1, next_attempt: this.nextAttempt(now, 1),
    }));
    let parkedIds = new Set<string>();
    try {
      const held = await this.repository.held(documents.map((parked) => parked.id));
      // A version parked already that is not older than the one arriving stays (and stands for
      // it): an older copy coming round a ring must not take the newer one's place, which no
      // replicator would send again (the `stale` rule of inbound.service.ts, isStaleCopy).
      const covered = documents.filter((parked) => { const kept = held.get(parked.id); return kept !== undefined && !isNewer(parked.doc, kept.doc); });
      const written = await this.repository.park(documents.filter((parked) => !covered.includes(parked)).map((parked) => { const kept = held.get(parked.id); return kept ? { ...parked, rev: kept.rev } : parked; }));
      parkedIds = new Set([...written, ...covered.map((parked) => parked.id)]);
    } catch (error) {
      this.logger.warn({ err: (error as Error).message, documents: documents.length }, 'incoming documents could not be parked: answered refused');
    }
    return { parked: parkedIds.size, left: rejected.filter((rejection) => !(rejection.transient === true && parkedIds.has(rejection.id))) };
  }

  /**
   * Sorts parked documents tried again by what the try decided (`result`, from inbound
   * distribution): a refusal that may pass again is kept with its next try, or given up past
   * the lifetime; anything else is done with. A document left for the next pass (a conflict with
   * another writer, `failed`) is kept and due again within a second. Writes the new state.
   */
  async settle(tried: HeldParkedDocument[], result: InboundResult): Promise<RetryOutcome> {
    const now = this.clock();
    const transient = new Map(result.rejected.filter((rejection) => rejection.transient === true).map((rejection) => [rejection.id, rejection]));
    const failed = new Set(result.failed);
    const outcome: RetryOutcome = { keep: [], done: [], gaveUp: [] };
    for (const parked of tried) {
      const again = transient.get(parked.id);
      if (failed.has(parked.id)) { outcome.keep.push({ ...parked, next_attempt: new Date(now.getTime() + Math.min(1000, this.policy.firstRetryMs)).toISOString() }); continue; }
      if (!again) { outcome.done.push(parked); continue; }
      const attempts = parked.attempts + 1;
      if (now.getTime() - Date.parse(parked.first_parked) >= this.policy.lifetimeMs) {
        outcome.done.push(parked);
        outcome.gaveUp.push({ ...again, error: `given up after ${attempts} tries since ${parked.first_parked}: ${again.error}`, transient: false });
        continue;
      }
      outcome.keep.push({ ...parked, attempts, reason: again.error, next_attempt: this.nextAttempt(now, attempts) });
    }
    await this.repository.reschedule(outcome.keep);
    await this.repository.remove(outcome.done);
    for (const rejection of outcome.gaveUp) this.logger.warn({ id: rejection.id, doc_ID: rejection.doc_ID, error: rejection.error }, 'parked document given up');
    return outcome;
  }

  /**
   * Up to `limit` parked documents due now, the longest due first, each claimed for this node
   * process: its next try is moved CLAIM_MS ahead over the revision read, so that another process
   * reading the same page gets a conflict and leaves it (two processes trying every document
   * fetched every key twice and counted each arrival twice, once as a duplicate). A process that
   * dies during its pass leaves its claims to run out.
   */
  async due(limit: number): Promise<HeldParkedDocument[]> {
    const due = await this.repository.due(this.clock().toISOString(), limit);
    const until = new Date(this.clock().getTime() + CLAIM_MS).toISOString();
    return this.repository.reschedule(due.map((parked) => ({ ...parked, next_attempt: until })));
  }

  count(): Promise<number> {
    return this.repository.count();
  }
}
