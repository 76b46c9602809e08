/**
 * IP address classification for SSRF protection.
 *
 * `classifyAddress` tells what kind of address a literal IPv4/IPv6 address is; only `'public'`
 * addresses are reachable by default through the safe fetcher. The special-purpose blocks are
 * ipaddr.js' `range()` (IANA IPv4/IPv6 Special-Purpose Address Registries), mapped here onto our
 * kinds. IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are classified by the embedded
 * IPv4 address; IPv4-compatible `::a.b.c.d` (deprecated) and Teredo are refused outright. For
 * IPv6 only global unicast (2000::/3) outside the special-purpose blocks is public. Anycast
 * services that IANA marks globally reachable (AS112, AMT, ORCHIDv2, DRIP) serve no documents
 * and are `reserved` too.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

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
  | 'documentation' // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
  | 'benchmarking' // 198.18/15, 2001:2::/48
  | 'reserved' // everything else that is not routable on the internet
  | 'invalid';

export interface AddressClass {
  kind: AddressKind;
  family: 4 | 6 | 0;
  /** For IPv6 forms that embed an IPv4 address: that address. */
  embeddedIPv4?: string;
}

/** ipaddr.js range names onto our kinds; a name not listed (teredo, amt, as112...) is 'reserved'. */
const KIND_OF_RANGE: Record<string, AddressKind> = {
  unicast: 'public', unspecified: 'unspecified', broadcast: 'broadcast', multicast: 'multicast', linkLocal: 'link-local',
  loopback: 'loopback', carrierGradeNat: 'cgnat', private: 'private', uniqueLocal: 'private', deprecatedSiteLocal: 'private',
  benchmarking: 'benchmarking',
};

/** Blocks ipaddr.js folds into a wider range ('unspecified', 'reserved', 'rfc6052'), told apart first. */
const cidrs = (list: string[]): [ipaddr.IPv4 | ipaddr.IPv6, number][] => list.map((cidr) => ipaddr.parseCIDR(cidr));
const REFINED = {
  unspecified: cidrs(['0.0.0.0/32', '::/128']),
  'this-network': cidrs(['0.0.0.0/8']),
  documentation: cidrs(['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20']),
  benchmarking: cidrs(['198.18.0.0/15']),
  private: cidrs(['64:ff9b:1::/48']), // local-use IPv4/IPv6 translation (RFC 8215)
};
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96'); // deprecated, RFC 4291 §2.5.5.1

/** The IPv4 address in 16-bit groups `at` and `at + 1` of an IPv6 address. */
function embedded(v6: ipaddr.IPv6, at: number): ipaddr.IPv4 {
  const high = v6.parts[at] ?? 0;
  const low = v6.parts[at + 1] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function kindOf(address: ipaddr.IPv4 | ipaddr.IPv6): AddressKind {
  const refined = ipaddr.subnetMatch(address, REFINED, '');
  if (refined !== '') return refined as AddressKind;
  const kind = KIND_OF_RANGE[address.range()] ?? 'reserved';
  if (kind === 'public' && address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST)) return 'reserved';
  return kind;
}

function classifyIPv6(v6: ipaddr.IPv6): AddressClass {
  const range = v6.range();
  const inside = range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && v6.parts[2] === 0) ? embedded(v6, 6)
    : range === '6to4' ? embedded(v6, 1) : undefined;
  if (inside) return { kind: kindOf(inside), family: 6, embeddedIPv4: inside.toString() };
  const kind = kindOf(v6);
  if (kind === 'reserved' && v6.match(IPV4_COMPATIBLE)) {
    return { kind, family: 6, embeddedIPv4: embedded(v6, 6).toString() };
  }
  return { kind, family: 6 };
}

/**
 * Classify a literal IP address (IPv4 dotted quad or IPv6, optionally in brackets or with a
 * `%zone`). Anything that is not a literal address is `'invalid'`. Node's isIPv4/isIPv6 decide
 * what is a literal (ipaddr.js alone would also read `1.2.3` or `0x7f.1` as IPv4).
 */
export function classifyAddress(address: string): AddressClass {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (isIPv4(text)) return { kind: kindOf(ipaddr.IPv4.parse(text)), family: 4 };
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // ipaddr.js reads the deprecated `::a.b.c.d` as `::ffff:a.b.c.d`: it gets the WHATWG URL
  // parser's canonical (hexadecimal) form instead.
  if (isIPv6(text)) return classifyIPv6(ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1)));
  return { kind: 'invalid', family: 0 };
}

/** Whether `address` is a public (globally routable unicast) address. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).kind === 'public';
}
