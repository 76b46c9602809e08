/**
 * Tries parked documents again when they are due (parked-documents.ts): a loop that reads and
 * claims the documents due, a page at a time, hands them to inbound distribution
 * (InboundReceiver.retry), and sleeps until the next check. Its state is all in the store (each
 * document's next try), so a restarted node resumes, and several node processes may run it at
 * once: each document due is claimed by one of them (ParkedDocuments.due).
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { InboundReceiver } from './inbound-receiver.js';
import type { ParkedDocuments } from './parked-documents.js';

export interface RetrierOptions {
  /** Longest sleep between two checks for documents due, in ms. */
  checkEveryMs: number;
  /** Documents tried in one pass. */
  pageSize?: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> => wait(ms, undefined, { signal }).catch(() => undefined);

export class ParkedRetrier {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly parked: ParkedDocuments,
    private readonly receiver: InboundReceiver,
    private readonly logger: Logger,
    private readonly options: RetrierOptions,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the pass in progress. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const pageSize = this.options.pageSize ?? 200;
    let backoff = 1000;
    while (!this.abort.signal.aborted) {
      try {
        const due = await this.parked.due(pageSize);
        if (due.length > 0) await this.receiver.retry(due);
        backoff = 1000;
        // A full page may have more behind it.
        if (due.length < pageSize) await sleep(this.options.checkEveryMs, this.abort.signal);
      } catch (error) {
        if (this.abort.signal.aborted) break;
        this.logger.warn({ err: (error as Error).message, retryInMs: backoff }, 'parked documents: retrying');
        await sleep(backoff, this.abort.signal);
        backoff = Math.min(backoff * 2, 60_000);
      }
    }
  }
}
