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

/**
 * How replacement.ts compares a trusted super key with a signer's fingerprint: white space
 * removed, case ignored. A v4 key's fingerprint is 40 hex digits, a v6 key's 64 (RFC 9580 §5.5.4);
 * a key id, or a fingerprint with a 0x, never equals one and trusted no key.
 */
const isFingerprint = (value: string): boolean => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value.replace(/\s+/g, ''));

/** Where distribution goes: `${url}/destination` is fetched, and the fetcher refuses credentials in a URL. */
function isNodeUrl(value: string): boolean {
  const url = parsedUrl(value);
  return url !== undefined && !url.username && !url.password && !url.search && !url.hash && !value.endsWith('?') && !value.endsWith('#');
}

export const CONFIG_FORMATS: Record<string, Format> = {
  'http-url': { validate: (value) => parsedUrl(value) !== undefined, rule: 'must be an absolute http(s) URL' },
  'node-url': { validate: isNodeUrl, rule: 'must be a node URL http(s)://host[:port][/path], without credentials, query or fragment' },
  'openpgp-fingerprint': { validate: isFingerprint, rule: 'must be an OpenPGP fingerprint: 40 hex digits (v4 key) or 64 (v6), spaces allowed' },
  datestamp: { validate: isDatestamp, rule: 'must be a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (OAI-PMH 2.0 §3.3.1)' },
};

export function addConfigFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries(CONFIG_FORMATS)) ajv.addFormat(name, { type: 'string', validate: format.validate });
}
