/**
 * Documents stored per day without a reduce (the embedded store's reduce reads every row, and
 * its view `offset` is not a row position, so neither `_count` nor offsets count cheaply there).
 * Instead a counter document in CouchDB (`_local/lr-daily-stored`) holds the count per day of
 * node_timestamp and the view position counted up to; each read goes on from that position with
 * keyset pages of Basic Harvest's map-only node_timestamp view ([node_timestamp, doc_ID], value 0
 * for the live documents, which are the ones counted; built for harvest and obtain anyway, so no
 * index of its own to maintain), so it costs the documents stored since the last read, never the
 * whole store. Rows younger than SETTLE_MS are counted but not saved: a
 * batch stamped a moment ago may still be written (or written by another node process whose
 * clock is slightly behind), so the saved position stays behind them.
 *
 * What is counted is a store event: a document counts on the day of its node_timestamp, a
 * document stored again (a same-doc_ID update, a replacement) counts again on the new day, and
 * deletions do not subtract. Several processes share the document; a conflict means another one
 * saved first, and its counts stand (ours were counted from the same position).
 */
import { nodeTimestamp, type Clock } from '../../domain/timestamps.js';
import type { DayCount } from '../../monitoring/dashboard-data.js';
import type { DailyCountsDoc, MonitoringRepository, ViewPosition } from '../../storage/monitoring-repository.js';

const PAGE = 5000;
const SETTLE_MS = 60_000;
/** Rows read by one refresh at most, so a first read of a large store cannot hold a request long; the next read goes on. */
const MAX_ROWS = 200_000;

export class DailyCounts {
  constructor(private readonly store: MonitoringRepository, private readonly clock: Clock) {}

  /** The last `days` days (UTC), oldest first, today last; `behind` is true when rows were left for the next read. */
  async lastDays(days: number): Promise<{ days: DayCount[]; behind: boolean }> {
    const now = this.clock();
    const saved = (await this.store.dailyCounts()) ?? { days: {}, after: null };
    const settled = await this.count(saved.after, nodeTimestamp(new Date(now.getTime() - SETTLE_MS)), MAX_ROWS);
    const counts: Record<string, number> = { ...saved.days };
    add(counts, settled.perDay);
    if (settled.rows > 0) {
      const doc: DailyCountsDoc = { days: counts, after: settled.last, ...(saved._rev ? { _rev: saved._rev } : {}) };
      await this.store.saveDailyCounts(doc);
    }
    let behind = settled.rows >= MAX_ROWS;
    if (!behind) {
      const fresh = await this.count(settled.last, nodeTimestamp(new Date(now.getTime() + SETTLE_MS)), PAGE * 4);
      add(counts, fresh.perDay);
      behind = fresh.rows >= PAGE * 4;
    }
    const result: DayCount[] = [];
    for (let offset = days - 1; offset >= 0; offset -= 1) {
      const day = new Date(now.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
      result.push({ day, stored: counts[day] ?? 0 });
    }
    return { days: result, behind };
  }

  private async count(after: ViewPosition | null, before: string, maxRows: number): Promise<{ perDay: Record<string, number>; last: ViewPosition | null; rows: number }> {
    const perDay: Record<string, number> = {};
    let last = after;
    let rows = 0;
    while (rows < maxRows) {
      const asked = Math.min(PAGE, maxRows - rows);
      const page = await this.store.storedPage(last, before, asked);
      for (const row of page.live) perDay[row.key.slice(0, 10)] = (perDay[row.key.slice(0, 10)] ?? 0) + 1;
      rows += page.read;
      last = page.last ?? last;
      if (page.read < asked) break;
    }
    return { perDay, last, rows };
  }
}

function add(into: Record<string, number>, more: Record<string, number>): void {
  for (const [day, count] of Object.entries(more)) into[day] = (into[day] ?? 0) + count;
}
