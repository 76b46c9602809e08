/**
 * Requests and errors of this process per minute over the last hour, for the dashboard (the
 * counters in Prometheus give the same over any range). 60 fixed buckets: constant memory.
 */
export interface MinuteRate { minute: string; requests: number; clientErrors: number; serverErrors: number }

const MINUTES = 60;
const MINUTE_MS = 60_000;

export class RecentRates {
  private readonly buckets = Array.from({ length: MINUTES }, () => ({ minute: -1, requests: 0, clientErrors: 0, serverErrors: 0 }));

  constructor(private readonly now: () => number = Date.now) {}

  record(status: number): void {
    const minute = Math.floor(this.now() / MINUTE_MS);
    const bucket = this.buckets[minute % MINUTES] as { minute: number; requests: number; clientErrors: number; serverErrors: number };
    if (bucket.minute !== minute) Object.assign(bucket, { minute, requests: 0, clientErrors: 0, serverErrors: 0 });
    bucket.requests += 1;
    if (status >= 500) bucket.serverErrors += 1;
    else if (status >= 400) bucket.clientErrors += 1;
  }

  /** The last 60 minutes, oldest first, the current (partial) minute last; minutes without requests are zeros. */
  lastHour(): MinuteRate[] {
    const current = Math.floor(this.now() / MINUTE_MS);
    const result: MinuteRate[] = [];
    for (let minute = current - MINUTES + 1; minute <= current; minute += 1) {
      const bucket = this.buckets[minute % MINUTES];
      const counts = bucket && bucket.minute === minute ? bucket : { requests: 0, clientErrors: 0, serverErrors: 0 };
      result.push({ minute: new Date(minute * MINUTE_MS).toISOString().slice(0, 16) + 'Z', requests: counts.requests, clientErrors: counts.clientErrors, serverErrors: counts.serverErrors });
    }
    return result;
  }
}
