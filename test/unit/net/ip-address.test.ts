// Every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries (and the multicast,
// site-local and embedded-IPv4 forms beside them), first and last address, with the public
// neighbours just outside, as the SSRF guard of src/net/safe-fetch.ts classifies them.
import { expect } from 'chai';
import { classifyAddress, type AddressKind } from '../../../src/net/ip-address.js';

/** [registry entry, first address, last address, kind]. */
const blocks: [string, string, string, AddressKind][] = [
  // IPv4 Special-Purpose Address Registry
  ['0.0.0.0/32 this host on this network', '0.0.0.0', '0.0.0.0', 'unspecified'],
  ['0.0.0.0/8 this network', '0.0.0.1', '0.255.255.255', 'this-network'],
  ['10.0.0.0/8 private-use', '10.0.0.0', '10.255.255.255', 'private'],
  ['100.64.0.0/10 shared address space', '100.64.0.0', '100.127.255.255', 'cgnat'],
  ['127.0.0.0/8 loopback', '127.0.0.0', '127.255.255.255', 'loopback'],
  ['169.254.0.0/16 link local', '169.254.0.0', '169.254.255.255', 'link-local'],
  ['172.16.0.0/12 private-use', '172.16.0.0', '172.31.255.255', 'private'],
  ['192.0.0.0/24 IETF protocol assignments', '192.0.0.0', '192.0.0.255', 'reserved'],
  ['192.0.0.0/29 DS-Lite', '192.0.0.0', '192.0.0.7', 'reserved'],
  ['192.0.0.8/32 IPv4 dummy address', '192.0.0.8', '192.0.0.8', 'reserved'],
  ['192.0.0.9/32 PCP anycast', '192.0.0.9', '192.0.0.9', 'reserved'],
  ['192.0.0.10/32 TURN anycast', '192.0.0.10', '192.0.0.10', 'reserved'],
  ['192.0.0.170/32, 192.0.0.171/32 NAT64/DNS64 discovery', '192.0.0.170', '192.0.0.171', 'reserved'],
  ['192.0.2.0/24 TEST-NET-1', '192.0.2.0', '192.0.2.255', 'documentation'],
  ['192.31.196.0/24 AS112-v4', '192.31.196.0', '192.31.196.255', 'reserved'],
  ['192.52.193.0/24 AMT', '192.52.193.0', '192.52.193.255', 'reserved'],
  ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.0', '192.88.99.255', 'reserved'],
  ['192.168.0.0/16 private-use', '192.168.0.0', '192.168.255.255', 'private'],
  ['192.175.48.0/24 direct delegation AS112 service', '192.175.48.0', '192.175.48.255', 'reserved'],
  ['198.18.0.0/15 benchmarking', '198.18.0.0', '198.19.255.255', 'benchmarking'],
  ['198.51.100.0/24 TEST-NET-2', '198.51.100.0', '198.51.100.255', 'documentation'],
  ['203.0.113.0/24 TEST-NET-3', '203.0.113.0', '203.0.113.255', 'documentation'],
  ['224.0.0.0/4 multicast', '224.0.0.0', '239.255.255.255', 'multicast'],
  ['240.0.0.0/4 reserved', '240.0.0.0', '255.255.255.254', 'reserved'],
  ['255.255.255.255/32 limited broadcast', '255.255.255.255', '255.255.255.255', 'broadcast'],
  // IPv6 Special-Purpose Address Registry
  ['::1/128 loopback', '::1', '::1', 'loopback'],
  ['::/128 unspecified', '::', '::', 'unspecified'],
  ['::/96 IPv4-compatible (deprecated)', '::2', '::ffff:ffff', 'reserved'],
  ['64:ff9b:1::/48 local-use IPv4/IPv6 translation', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['64:ff9b::/32 outside the /96 and the /48', '64:ff9b:2::', '64:ff9b:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['100::/64 discard-only', '100::', '100::ffff:ffff:ffff:ffff', 'reserved'],
  ['100:0:0:1::/64 dummy IPv6 prefix', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001::/32 Teredo', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001::/23 IETF protocol assignments', '2001:1::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:1::1/128 PCP anycast', '2001:1::1', '2001:1::1', 'reserved'],
  ['2001:1::2/128 TURN anycast', '2001:1::2', '2001:1::2', 'reserved'],
  ['2001:1::3/128 DNS-SD SRP anycast', '2001:1::3', '2001:1::3', 'reserved'],
  ['2001:2::/48 benchmarking', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', 'benchmarking'],
  ['2001:3::/32 AMT', '2001:3::', '2001:3:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:4:112::/48 AS112-v6', '2001:4:112::', '2001:4:112:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:10::/28 deprecated ORCHID', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:20::/28 ORCHIDv2', '2001:20::', '2001:2f:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:30::/28 drone remote ID entity tags', '2001:30::', '2001:3f:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['2001:db8::/32 documentation', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2620:4f:8000::/48 direct delegation AS112 service', '2620:4f:8000::', '2620:4f:8000:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['3fff::/20 documentation', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['5f00::/16 SRv6 SIDs', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['fc00::/7 unique-local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fe80::/10 link-local unicast', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::/10 site-local (deprecated)', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['ff00::/8 multicast', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  ['outside 2000::/3 global unicast', '::1:0:0', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
  ['outside 2000::/3 global unicast', '4000::', 'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'reserved'],
];

/** Public addresses right next to the blocks above. */
const publicNeighbours = [
  '1.0.0.0', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255',
  '169.255.0.0', '172.15.255.255', '172.32.0.0', '191.255.255.255', '192.0.1.0', '192.0.3.0', '192.31.195.255', '192.31.197.0',
  '192.52.192.255', '192.52.194.0', '192.88.98.255', '192.88.100.0', '192.167.255.255', '192.169.0.0', '192.175.47.255',
  '192.175.49.0', '198.17.255.255', '198.20.0.0', '198.51.99.255', '198.51.101.0', '203.0.112.255', '203.0.114.0', '223.255.255.255',
  '2000::', '2001:200::', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::', '2003::', '2620:4f:7fff:ffff:ffff:ffff:ffff:ffff',
  '2620:4f:8001::', '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '3fff:1000::', '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
];

/** IPv6 forms that carry an IPv4 address: [address, embedded IPv4, kind of that IPv4 address]. */
const embedded: [string, string, AddressKind][] = [
  ['::ffff:0.0.0.0', '0.0.0.0', 'unspecified'], // IPv4-mapped ::ffff:0:0/96
  ['::ffff:255.255.255.255', '255.255.255.255', 'broadcast'],
  ['::ffff:c000:22a', '192.0.2.42', 'documentation'],
  ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'link-local'], // IPv4-translated ::ffff:0:0:0/96 (RFC 2765)
  ['::ffff:0:8.8.4.4', '8.8.4.4', 'public'],
  ['64:ff9b::', '0.0.0.0', 'unspecified'], // NAT64 well-known prefix 64:ff9b::/96
  ['64:ff9b::ffff:ffff', '255.255.255.255', 'broadcast'],
  ['64:ff9b::192.168.1.1', '192.168.1.1', 'private'],
  ['64:ff9b::9.9.9.9', '9.9.9.9', 'public'],
  ['2002::', '0.0.0.0', 'unspecified'], // 6to4 2002::/16
  ['2002:a9fe:a9fe::1', '169.254.169.254', 'link-local'],
  ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '255.255.255.255', 'broadcast'],
  ['2002:909:909::', '9.9.9.9', 'public'],
  ['::9.9.9.9', '9.9.9.9', 'reserved'], // IPv4-compatible (deprecated): refused whatever it embeds
  ['0:0:0:0:0:0:192.168.0.1', '192.168.0.1', 'reserved'],
];

describe('IP classification (IANA special-purpose registries)', () => {
  for (const [entry, first, last, kind] of blocks) {
    it(`${entry}: ${first} .. ${last} is ${kind}`, () => {
      for (const address of [first, last, `[${first}]`]) expect(classifyAddress(address).kind, address).to.equal(kind);
    });
  }
  it('the public neighbours of those blocks are public', () => {
    for (const address of publicNeighbours) expect(classifyAddress(address).kind, address).to.equal('public');
  });
  it('IPv6 forms embedding an IPv4 address are classified by that address', () => {
    for (const [address, v4, kind] of embedded) expect(classifyAddress(address), address).to.deep.equal({ kind, family: 6, embeddedIPv4: v4 });
  });
  it('only strict literals are addresses (no inet_aton forms, no zone on IPv4)', () => {
    for (const address of ['0x7f.1', '127.1', '0177.0.0.1', '2130706433', '127.0.0.01', '1.2.3.4%eth0', '::ffff:127.1', '[127.0.0.1', '::1]', ' ']) {
      expect(classifyAddress(address).kind, address).to.equal('invalid');
    }
  });
  it('keeps the zone out of the classification', () => {
    expect(classifyAddress('fe80::1%25eth0')).to.deep.equal({ kind: 'link-local', family: 6 });
    expect(classifyAddress('[2606:4700::1%1]')).to.deep.equal({ kind: 'public', family: 6 });
  });
});
