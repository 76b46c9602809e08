/**
 * The string formats of the CONFIG schema (node-config.schema.ts), each with the sentence a
 * refused value is told (node-config.ts): ajv's own "must match format" names no rule.
 */
import type { Ajv } from 'ajv';

interface Format { validate: (value: string) => boolean; rule: string }

function parsedUrl(value: string): URL | undefined {
  // The URL parser drops tabs and newlines where a person would not (`http://a\tb` is http://ab/).
  if (/\s/.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A real calendar date (and time): `2024-02-30` is no day, though Date would roll it over. */
function isDatestamp(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z)?$/.exec(value);
  if (!match) return false;
  const [, year, month, day, hour = '00', minute = '00', second = '00'] = match;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second));
  return date.toISOString().slice(0, 19) === `${year}-${month}-${day}T${hour}:${minute}:${second}`;
}

export const CONFIG_FORMATS: Record<string, Format> = {
  'http-url': { validate: (value) => parsedUrl(value) !== undefined, rule: 'must be an absolute http(s) URL' },
  datestamp: { validate: isDatestamp, rule: 'must be a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (OAI-PMH 2.0 §3.3.1)' },
};

export function addConfigFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(CONFIG_FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.validate });
}
