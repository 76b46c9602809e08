/**
 * IP address classification for SSRF protection.
 *
 * `classifyAddress` tells what kind of address a literal IPv4/IPv6 address is; only `'public'`
 * addresses are reachable by default through the safe fetcher. IPv6 forms that embed an IPv4
 * address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are classified by the embedded IPv4 address; IPv4-compatible
 * `::a.b.c.d` (deprecated) and Teredo are refused outright. For IPv6 only global unicast
 * (2000::/3) outside the special-purpose blocks is public.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type AddressKind =
  | 'public'
  | 'unspecified' // 0.0.0.0, :: (Linux connects 0.0.0.0 to the local host)
  | 'this-network' // 0.0.0.0/8
  | 'loopback' // 127/8, ::1
  | 'private' // 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10, 64:ff9b:1::/48
  | 'link-local' // 169.254/16, fe80::/10
  | 'cgnat' // 100.64/10
  | 'multicast' // 224/4, ff00::/8
  | 'broadcast' // 255.255.255.255
  | 'documentation' // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32
  | 'benchmarking' // 198.18/15, 2001:2::/48
  | 'reserved' // everything else that is not routable on the internet
  | 'invalid';

export interface AddressClass {
  kind: AddressKind;
  family: 4 | 6 | 0;
  /** For IPv6 forms that embed an IPv4 address: that address. */
  embeddedIPv4?: string;
}

type V4 = [number, number, number, number];

function parseIPv4(address: string): V4 | null {
  if (!isIPv4(address)) return null;
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  return parts as V4;
}

/** Parse an IPv6 address (without zone) into 8 16-bit groups. */
function parseIPv6(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const lastPart = text.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    // Trailing dotted IPv4 (::ffff:1.2.3.4): rewrite it as two hex groups.
    const v4 = parseIPv4(lastPart);
    if (!v4) return null;
    const high = ((v4[0] << 8) | v4[1]).toString(16);
    const low = ((v4[2] << 8) | v4[3]).toString(16);
    text = `${text.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const toGroups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = toGroups(halves[0] ?? '');
  const rest = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  const groups =
    halves.length === 1 ? head : [...head, ...new Array<number>(Math.max(0, 8 - head.length - rest.length)).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

function v4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function classifyIPv4(b: V4): AddressKind {
  const [a, b1, c] = b;
  if (a === 0) return b1 === 0 && c === 0 && b[3] === 0 ? 'unspecified' : 'this-network';
  if (a === 10) return 'private';
  if (a === 100 && b1 >= 64 && b1 <= 127) return 'cgnat';
  if (a === 127) return 'loopback';
  if (a === 169 && b1 === 254) return 'link-local';
  if (a === 172 && b1 >= 16 && b1 <= 31) return 'private';
  if (a === 192 && b1 === 0 && c === 0) return 'reserved'; // IETF protocol assignments
  if (a === 192 && b1 === 0 && c === 2) return 'documentation';
  if (a === 192 && b1 === 88 && c === 99) return 'reserved'; // 6to4 relay anycast
  if (a === 192 && b1 === 168) return 'private';
  if (a === 198 && (b1 === 18 || b1 === 19)) return 'benchmarking';
  if (a === 198 && b1 === 51 && c === 100) return 'documentation';
  if (a === 203 && b1 === 0 && c === 113) return 'documentation';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a === 255 && b1 === 255 && c === 255 && b[3] === 255) return 'broadcast';
  if (a >= 240) return 'reserved';
  return 'public';
}

function classifyIPv6(g: number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroPrefix80 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  const embedded = (high: number, low: number): AddressClass => {
    const v4 = v4FromGroups(high, low);
    const parsed = parseIPv4(v4);
    return { kind: parsed ? classifyIPv4(parsed) : 'invalid', family: 6, embeddedIPv4: v4 };
  };
  if (zeroPrefix80 && g5 === 0xffff) return embedded(g6, g7); // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeroPrefix80 && g5 === 0) {
    if (g6 === 0 && g7 === 0) return { kind: 'unspecified', family: 6 };
    if (g6 === 0 && g7 === 1) return { kind: 'loopback', family: 6 };
    // ::a.b.c.d IPv4-compatible (deprecated): never a legitimate destination.
    return { kind: 'reserved', family: 6, embeddedIPv4: v4FromGroups(g6, g7) };
  }
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) {
    return embedded(g6, g7); // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765)
  }
  if (g0 === 0x64 && g1 === 0xff9b) {
    if (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embedded(g6, g7); // NAT64 well-known
    if (g2 === 1) return { kind: 'private', family: 6 }; // 64:ff9b:1::/48 local-use NAT64
    return { kind: 'reserved', family: 6 };
  }
  if (g0 === 0x2002) return embedded(g1, g2); // 6to4
  if (g0 === 0x2001) {
    if (g1 === 0) return { kind: 'reserved', family: 6 }; // Teredo 2001::/32
    if (g1 === 0xdb8) return { kind: 'documentation', family: 6 };
    if (g1 === 2 && g2 === 0) return { kind: 'benchmarking', family: 6 };
    if (g1 < 0x200) return { kind: 'reserved', family: 6 }; // rest of 2001::/23 (IETF protocol assignments, ORCHID)
  }
  if (g0 === 0x3fff && g1 <= 0x0fff) return { kind: 'documentation', family: 6 }; // 3fff::/20
  if ((g0 & 0xfe00) === 0xfc00) return { kind: 'private', family: 6 }; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return { kind: 'link-local', family: 6 };
  if ((g0 & 0xffc0) === 0xfec0) return { kind: 'private', family: 6 }; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return { kind: 'multicast', family: 6 };
  if ((g0 & 0xe000) !== 0x2000) return { kind: 'reserved', family: 6 }; // outside global unicast 2000::/3
  return { kind: 'public', family: 6 };
}

/**
 * Classify a literal IP address (IPv4 dotted quad or IPv6, optionally in brackets or with a
 * `%zone`). Anything that is not a literal address is `'invalid'`.
 */
export function classifyAddress(address: string): AddressClass {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const v4 = parseIPv4(text);
  if (v4) return { kind: classifyIPv4(v4), family: 4 };
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const v6 = parseIPv6(text);
  if (v6) return classifyIPv6(v6);
  return { kind: 'invalid', family: 0 };
}

/** Whether `address` is a public (globally routable unicast) address. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).kind === 'public';
}
