// The SSRF guard of search-by-URL: which addresses a clone may connect to.
import { describe, expect, it } from 'vitest';
import { checkCloneUrl } from '../../src/search/server/clone.js';
import { embeddedIpv4, ipv6Words, isPrivateAddress } from '../../src/search/server/private-address.js';

describe('isPrivateAddress', () => {
  it('refuses IPv6 forms that carry a private IPv4 address', () => {
    for (const address of [
      '::127.0.0.1', // IPv4-compatible
      '::7f00:1', // the same as a URL's host writes it
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe', // mapped 169.254.169.254: cloud metadata
      '::ffff:0:10.0.0.1', // IPv4-translated (SIIT)
      '::ffff:0:c0a8:101', // translated 192.168.1.1
      '64:ff9b::127.0.0.1', // NAT64
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::8.8.8.8', // local-use NAT64: refused as a whole
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2001:0:7f00:1::', // Teredo with server 127.0.0.1
      '2001:0:808:808:0:0:f5ff:fffe', // Teredo with client 10.0.0.1 (bits flipped)
      '[::ffff:127.0.0.1]',
      'fe80::1%eth0',
      'fec0::1',
      '100::1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('refuses the plain private ranges of both families, and anything that is not an address', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      '::',
      'fd00::1',
      'ff02::1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['localhost', '', '1::2::3', '12345::1'])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('lets public addresses through, also when an IPv6 form carries a public IPv4 one', () => {
    for (const address of [
      '140.82.112.3',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // the RFC 4380 example: server 65.54.227.120, client 192.0.2.45
    ])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('decodes the IPv4 address each form carries', () => {
    const decode = (address: string) => embeddedIpv4(ipv6Words(address) ?? []);
    expect(decode('::127.0.0.1')).toEqual(['127.0.0.1']);
    expect(decode('::ffff:0:10.0.0.1')).toEqual(['10.0.0.1']);
    expect(decode('64:ff9b::a9fe:a9fe')).toEqual(['169.254.169.254']);
    expect(decode('2002:c0a8:101::1')).toEqual(['192.168.1.1']);
    expect(decode('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(decode('2606:4700:4700::1111')).toEqual([]);
  });
});

describe('checkCloneUrl', () => {
  it('refuses a URL whose IPv6 host carries a loopback address, naming the rule and the escape hatch', async () => {
    for (const url of [
      'http://[::127.0.0.1]/r.git',
      'https://[64:ff9b::7f00:1]/r.git',
      'http://[2002:7f00:1::]/r',
    ])
      await expect(checkCloneUrl(url, false)).rejects.toThrow(
        /is a loopback, private or link-local address .*MCPKIT_ALLOW_PRIVATE_CLONE=1/,
      );
    await expect(checkCloneUrl('http://[::127.0.0.1]/r.git', true)).resolves.toMatchObject({ port: 80 });
  });
});
