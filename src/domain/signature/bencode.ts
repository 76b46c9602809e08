/**
 * Bencoding as LRSignature does it for the LR-PGP.1.0 canonical hash (canonical-hash.ts):
 * dictionary keys sorted, string length prefixes counting characters, not UTF-8 bytes.
 *
 * Character counts use Unicode code points (Python 2 "wide" builds, as on Linux servers); a
 * narrow build (UTF-16 code units) only differs for characters outside the BMP. Keys are sorted
 * by code point for the same reason.
 */

/** A value after normalisation: what the bencoder accepts. */
export type BencodeValue = string | bigint | BencodeValue[] | { [key: string]: BencodeValue };

/** Number of characters as Python 2 (wide build) `len(unicode)` counts them: code points. */
function charCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Compare two strings by Unicode code point (Python 2 wide-build unicode ordering). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ra = ia.next();
    const rb = ib.next();
    if (ra.done) return rb.done ? 0 : -1;
    if (rb.done) return 1;
    const ca = ra.value.codePointAt(0) ?? 0;
    const cb = rb.value.codePointAt(0) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
}

function bencodeInto(value: BencodeValue, out: string[]): void {
  if (typeof value === 'string') {
    out.push(String(charCount(value)), ':', value);
  } else if (typeof value === 'bigint') {
    out.push('i', value.toString(), 'e');
  } else if (Array.isArray(value)) {
    out.push('l');
    for (const child of value) bencodeInto(child, out);
    out.push('e');
  } else {
    out.push('d');
    const keys = Object.keys(value).sort(compareCodePoints);
    for (const key of keys) {
      out.push(String(charCount(key)), ':', key);
      bencodeInto(value[key] as BencodeValue, out);
    }
    out.push('e');
  }
}

/**
 * Bencode an already-normalised value the way LRSignature does: the result is a (unicode)
 * string whose length prefixes count characters; UTF-8 encode it before hashing.
 */
export function bencode(value: BencodeValue): string {
  const out: string[] = [];
  bencodeInto(value, out);
  return out.join('');
}
