/**
 * Datestamps of Basic Harvest and OAI-PMH (spec "Basic Harvest (JSON)", listrecords rules 1-5;
 * OAI-PMH 2.0 §3.3.1 and §3.3.2): `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`, never fractional
 * seconds, and selection by node_timestamp with both bounds inclusive.
 */
import { dayDatestamp, nodeTimestamp, secondsDatestamp } from '../../domain/timestamps.js';

export type Granularity = 'YYYY-MM-DD' | 'YYYY-MM-DDThh:mm:ssZ';
export const SECONDS: Granularity = 'YYYY-MM-DDThh:mm:ssZ';

export function granularityOf(setting: unknown): Granularity {
  return setting === 'YYYY-MM-DD' ? 'YYYY-MM-DD' : SECONDS;
}

/** A node_timestamp (or any ISO timestamp) as a datestamp of the service granularity. */
export function datestamp(timestamp: string, granularity: Granularity): string {
  return granularity === 'YYYY-MM-DD' ? dayDatestamp(timestamp) : secondsDatestamp(timestamp);
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

interface ParsedDate { value: string; granularity: Granularity }

/** A real calendar date and time of one of the two forms, or undefined. */
// Ours: OAI-PMH allows exactly these two forms (§3.3.1); ISO 8601 parsers and Date.parse accept many more.
export function parseDatestamp(text: string): ParsedDate | undefined {
  const match = SECOND.exec(text) ?? DAY.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = match;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() !== Number(y) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)
    || date.getUTCHours() !== Number(h) || date.getUTCMinutes() !== Number(mi) || date.getUTCSeconds() !== Number(s)) return undefined;
  return { value: text, granularity: text.length === 10 ? 'YYYY-MM-DD' : SECONDS };
}

/** The node_timestamp bounds of a request, both inclusive, in the stored fixed-width form. */
export interface TimeBounds { from: string | undefined; until: string | undefined }

export type DateCheck = { ok: true; bounds: TimeBounds } | { ok: false; message: string };

/** Rules 1-3 of "Listrecords and listidentifiers rules", then the bounds as node_timestamp strings. */
export function checkDateRange(from: string | undefined, until: string | undefined, service: Granularity): DateCheck {
  const parsed: (ParsedDate | undefined)[] = [];
  for (const [name, text] of [['from', from], ['until', until]] as const) {
    // Only an absent argument is no bound: an empty `from=` is a value that is no date (badArgument in
    // both protocols; slice's own day parser refuses it too), where read as absent it listed everything.
    if (text === undefined) { parsed.push(undefined); continue; }
    const date = parseDatestamp(text);
    if (!date) return { ok: false, message: `${name} is not a date of the form YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ: ${text.slice(0, 40)}` };
    if (date.granularity === SECONDS && service === 'YYYY-MM-DD') return { ok: false, message: `${name} is finer than the service granularity (${service})` };
    parsed.push(date);
  }
  const [start, end] = parsed;
  if (start && end && start.granularity !== end.granularity) return { ok: false, message: 'from and until have different granularities' };
  const bounds: TimeBounds = { from: start ? lowerBound(start.value) : undefined, until: end ? upperBound(end.value) : undefined };
  if (bounds.from && bounds.until && bounds.from > bounds.until) return { ok: false, message: 'from is later than until' };
  return { ok: true, bounds };
}

/** The first node_timestamp a datestamp covers. */
export function lowerBound(value: string): string {
  return value.length === 10 ? `${value}T00:00:00.000000Z` : `${value.slice(0, 19)}.000000Z`;
}

/** The last node_timestamp a datestamp covers (a whole day or a whole second: until is inclusive). */
function upperBound(value: string): string {
  return value.length === 10 ? `${value}T23:59:59.999999Z` : `${value.slice(0, 19)}.999999Z`;
}

/** The responseDate of both protocols: UTC, seconds. */
export function responseDate(now: Date): string {
  return secondsDatestamp(nodeTimestamp(now));
}

/**
 * How far a list's responseDate trails the instant the list is pinned to. A document's
 * node_timestamp is set when its publish batch starts, and the batch is written after, in slices
 * (seconds later for a large signed batch, from any node process), so at the pin some documents
 * stamped just before it may not be stored yet. Harvesters ask next `from` the responseDate
 * (OAI-PMH harvesting guidelines): trailing by longer than a batch takes to write, it covers
 * those documents again, and they are not lost (a scale audit lost 53-159 of 1,000). What was
 * listed already comes again, which harvesters expect from an inclusive `from`.
 */
export const LIST_RESPONSE_LAG_MS = 10_000;

/** The responseDate of a list verb's answer (or of its error): LIST_RESPONSE_LAG_MS before the pin. */
export function listResponseDate(pinned: Date): string {
  return responseDate(new Date(pinned.getTime() - LIST_RESPONSE_LAG_MS));
}
