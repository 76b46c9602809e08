/**
 * What happens to documents that arrived for this node, whichever way they came: straight from a
 * replicator's `_bulk_docs` at /incoming (inbound-proxy.http.ts: checked and stored once, never written
 * to the incoming database), or through the incoming database (the follower: documents sent with
 * attachments, `PUT {docid}?new_edits=false`, and anything a node before this change left there).
 * Counts outcomes in the metrics and keeps `last_in_sync` (spec "Network node status"), written at
 * most every STATUS_EVERY_MS while documents keep arriving and once when they stop (flush).
 */
import type { Logger } from 'pino';
import { winningRevisions } from '../../domain/revisions.js';
import type { DistributionRepository } from '../../storage/distribution-outbound.js';
import type { StoredDoc } from '../../storage/documents.js';
import type { NodeMetrics } from '../../monitoring/node-metrics.js';
import type { InboundResult, InboundService } from './inbound.service.js';
import { rejectionReasons } from './rejection-summary.js';
import type { ParkedDocuments, RetryOutcome } from './parked-documents.js';
import type { HeldParkedDocument } from '../../storage/distribution-parked.js';

const STATUS_EVERY_MS = 2000;

export class InboundReceiver {
  private pendingInSync: string | undefined;
  private statusWritten = 0;

  constructor(
    private readonly inbound: InboundService,
    private readonly status: DistributionRepository,
    private readonly metrics: NodeMetrics,
    private readonly logger: Logger,
    private readonly parking: ParkedDocuments,
  ) {}

  /** Documents as they arrived; a refusal that may pass is parked to be tried again (parked-documents.ts), not answered refused. */
  async receive(arrived: StoredDoc[]): Promise<InboundResult> {
    // A document in conflict at the source arrives as several revisions; the node keeps CouchDB's
    // winner. Sent on as "two revisions of one document", the batch failed every time (503) and
    // distribution from that source stopped for good.
    const winners = winningRevisions(arrived);
    const result = await this.inbound.process(winners);
    if (result.rejected.some((rejection) => rejection.transient === true)) {
      const { parked, left } = await this.parking.parkArrivals(result.rejected, new Map(winners.map((doc) => [doc._id, doc])));
      result.parked = parked;
      result.rejected = left;
    }
    await this.report(result, 'incoming documents processed');
    return result;
  }

  /**
   * Parked documents tried again. Counted and logged as any arrival is, but for a refusal that
   * may pass again (the document stays parked, counted once when it was parked) and with the
   * documents given up counted refused.
   */
  async retry(parked: HeldParkedDocument[]): Promise<RetryOutcome> {
    const result = await this.inbound.process(parked.map((entry) => entry.doc));
    const outcome = await this.parking.settle(parked, result);
    const decided = { ...result, rejected: [...result.rejected.filter((rejection) => rejection.transient !== true), ...outcome.gaveUp], parked: 0 };
    // At info whatever came of it: an operator watching a key server come back sees the documents stored.
    await this.report(decided, 'parked documents tried again', { still_parked: outcome.keep.length }, true);
    return outcome;
  }

  private async report(result: InboundResult, message: string, extra: Record<string, number> = {}, atInfo = false): Promise<void> {
    this.metrics.incomingResults(result);
    // A superseded original is stored too, as its tombstone.
    if (result.stored + result.superseded > 0) {
      this.pendingInSync = new Date().toISOString();
      if (Date.now() - this.statusWritten >= STATUS_EVERY_MS) await this.flush();
    }
    const level = atInfo || result.rejected.length > 0 || result.failed.length > 0 || result.parked > 0 ? 'info' : 'debug';
    // The reasons at the same level as the counts, bounded (rejection-summary.ts); every refusal
    // in full only at debug.
    const reasons = result.rejected.length > 0 ? rejectionReasons(result.rejected) : {};
    this.logger[level]({ stored: result.stored, duplicates: result.duplicates, stale: result.stale, superseded: result.superseded, filtered: result.filtered, parked: result.parked, rejected: result.rejected.length, retried: result.failed.length, ...extra, ...reasons }, message);
    for (const rejection of result.rejected) this.logger.debug(rejection, 'incoming document not stored');
  }

  /** Writes the last `last_in_sync` not written yet (the follower calls it when nothing arrives). */
  async flush(): Promise<void> {
    if (!this.pendingInSync) return;
    const at = this.pendingInSync;
    this.pendingInSync = undefined;
    this.statusWritten = Date.now();
    await this.status.recordInbound(at);
  }
}
