/**
 * The `lr-date-time` string format used by resource data description documents for
 * `node_timestamp`, `create_timestamp`, `update_timestamp`, `submitter_timestamp` and
 * `submitter_TTL`.
 *
 * Mirrors the original Learning Registry `date-time-us` format: a UTC ISO 8601 date-time
 * `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` with up to six fraction digits (microseconds, as the
 * original Python nodes wrote them) and a literal `Z`. Month and day may have one or two
 * digits, as in the original. The date must exist in the calendar (no 2013-02-31) and the
 * time must be a real clock time (hour 0-23, minute and second 0-59).
 */
const LR_DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?Z$/;

/** Name under which the format is registered with ajv and referenced by the schemas. */
export const LR_DATE_TIME_FORMAT = 'lr-date-time';

/** A human-readable description of the format, for error messages. */
export const LR_DATE_TIME_HINT = 'a UTC date-time like 2013-01-23T12:00:00Z or 2013-01-23T12:00:00.123456Z';

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isLrDateTime(value: string): boolean {
  const match = LR_DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number, number, number, number, number, number,
  ];
  if (year < 1 || month < 1 || month > 12) return false;
  if (day < 1 || day > daysInMonth(year, month)) return false;
  return hour <= 23 && minute <= 59 && second <= 59;
}
