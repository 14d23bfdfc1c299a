import { BlockList, isIP } from 'node:net';

/** IPv4 ranges a clone must not reach unless MCPKIT_ALLOW_PRIVATE_CLONE=1 (SSRF into the local network). */
const PRIVATE_V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE_V4.addSubnet(net, prefix, 'ipv4');

/** IPv6 ranges that are private in themselves (those that embed an IPv4 address are decoded instead). */
const PRIVATE_V6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the local set-up
  ['100::', 64], // discard-only
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed locally by some stacks)
  ['ff00::', 8], // multicast
] as const)
  PRIVATE_V6.addSubnet(net, prefix, 'ipv6');

/**
 * Whether a clone must not connect to this address (IPv4 or IPv6, as DNS or a URL's host gives it): loopback,
 * private, link-local, CGNAT, unique-local, multicast and reserved ranges. An IPv6 address that carries an
 * IPv4 one — IPv4-mapped (`::ffff:127.0.0.1`), IPv4-compatible (`::127.0.0.1`), IPv4-translated / SIIT
 * (`::ffff:0:127.0.0.1`), NAT64 (`64:ff9b::127.0.0.1`), 6to4 (`2002:7f00:1::`) and Teredo (server and client)
 * — is judged by the IPv4 address it carries, since a host with such a translator or tunnel delivers it there.
 * Anything that is not an IP address at all is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE_V4.check(bare, 'ipv4');
  const words = family === 6 ? ipv6Words(bare) : undefined;
  if (!words) return true;
  if (PRIVATE_V6.check(bare, 'ipv6')) return true;
  return embeddedIpv4(words).some((v4) => PRIVATE_V4.check(v4, 'ipv4'));
}

/** The IPv4 addresses an IPv6 address carries by a standard translation or tunnel (none for most). */
export function embeddedIpv4(words: readonly number[]): string[] {
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT)
  if (zeros(0, 4) && ((w4 === 0 && (w5 === 0 || w5 === 0xffff)) || (w4 === 0xffff && w5 === 0)))
    return [v4(w6, w7)];
  if (w0 === 0x64 && w1 === 0xff9b && zeros(2, 6)) return [v4(w6, w7)]; // NAT64 well-known prefix
  if (w0 === 0x2002) return [v4(w1, w2)]; // 6to4
  // Teredo: the server's address as it is, the client's with every bit flipped.
  if (w0 === 0x2001 && w1 === 0) return [v4(w2, w3), v4(~w6 & 0xffff, ~w7 & 0xffff)];
  return [];
}

/** The eight 16-bit words of an IPv6 address (`::` expanded, a trailing dotted IPv4 part as two words). */
export function ipv6Words(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((w) => Number.parseInt(w, 16)) : [];
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}
