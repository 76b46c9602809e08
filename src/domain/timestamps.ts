/**
 * Node timestamps: UTC ISO 8601 with six fractional digits (the form the original nodes stored,
 * e.g. 2011-11-02T09:24:54.449163Z). One fixed width keeps view keys in time order.
 */
export type Clock = () => Date;

export function nodeTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Second granularity for harvest datestamps (never fractional seconds). */
export function secondsDatestamp(timestamp: string): string {
  return `${timestamp.slice(0, 19)}Z`;
}

export function dayDatestamp(timestamp: string): string {
  return timestamp.slice(0, 10);
}

/** An ISO 8601 UTC timestamp as [epoch milliseconds of its whole second, microseconds within it], or undefined. */
function instantOf(value: unknown): [number, number] | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(value);
  const seconds = match ? Date.parse(`${match[1]}Z`) : NaN;
  if (!match || Number.isNaN(seconds)) return undefined;
  return [seconds, Number((match[2] ?? '').padEnd(6, '0').slice(0, 6))];
}

/**
 * Orders two timestamps in time, to the microsecond, whatever their fractional digits
 * (`…:19Z`, `…:19.5Z`, `…:19.500000Z`): negative when `a` is earlier, 0 when equal, positive when
 * later; undefined when either is not an ISO 8601 UTC timestamp (then nothing can be said).
 */
export function compareTimestamps(a: unknown, b: unknown): number | undefined {
  const [x, y] = [instantOf(a), instantOf(b)];
  if (!x || !y) return undefined;
  return x[0] !== y[0] ? x[0] - y[0] : x[1] - y[1];
}

/**
 * `now`, or just after `previous` (by one microsecond) when `now` is not later: the timestamps
 * of a new version of a document must follow those of the version it replaces. Two updates of
 * one doc_ID racing (two node processes, or two requests of one) are written one after the
 * other, and the second could carry the earlier time, taken when its request began (an audit:
 * 11 of 20 such races): a peer that had received the first then took the second for an older
 * copy (`stale`), and a harvester past the first's node_timestamp never saw the second.
 */
export function timestampAfter(now: string, previous: unknown): string {
  const order = compareTimestamps(now, previous);
  if (order === undefined || order > 0) return now;
  const [seconds, fraction] = instantOf(previous) as [number, number];
  const micros = seconds * 1000 + fraction + 1;
  const whole = Math.floor(micros / 1_000_000);
  return `${new Date(whole * 1000).toISOString().slice(0, 19)}.${String(micros - whole * 1_000_000).padStart(6, '0')}Z`;
}
