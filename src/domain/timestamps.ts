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
