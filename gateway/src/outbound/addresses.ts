import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is on the public internet. Anything else (loopback, private, link-local, carrier-grade NAT,
 * multicast, documentation, reserved) could reach the gateway's own host or its network.
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, SIIT
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and 6to4 `2002:aabb:ccdd::`) are judged by that IPv4 address, since a
 * host or a translator on the way turns them into it. Teredo tunnels are refused outright: the address they reach is
 * obfuscated in them.
 */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  const address = ipaddr.parse(text);
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIPv4(address as ipaddr.IPv6);
    if (embedded) return embedded.range() === 'unicast';
  }
  return address.range() === 'unicast';
}

const LAST_32_BITS = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const words = address.parts;
  const range = address.range();
  if (range === '6to4') return fromWords(words[1]!, words[2]!);
  if (LAST_32_BITS.has(range) || words.slice(0, 6).every((w) => w === 0)) return fromWords(words[6]!, words[7]!);
  return undefined;
}

const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
