import type { LookupAddress } from 'node:dns';
import {
  assertPublicHost,
  assertPublicLiteral,
  BlockedTargetError,
  blockedRangeOf,
  hostOf,
  publicOnlyLookup,
} from './address-guard';

describe('address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.5', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:0:7f00:1', 'rfc6145'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRangeOf(address)).toBe(range);
  });

  describe('an IPv6 address that embeds an IPv4 one is judged by the IPv4 address', () => {
    it.each([
      ['mapped', '::ffff:127.0.0.1', 'loopback'],
      ['mapped', '::ffff:7f00:1', 'loopback'],
      ['mapped', '::ffff:169.254.169.254', 'linkLocal'],
      ['compatible', '::127.0.0.1', 'loopback'],
      ['compatible', '::7f00:1', 'loopback'],
      ['compatible', '::a00:1', 'private'],
      ['compatible', '::2', 'unspecified'],
      ['NAT64', '64:ff9b::7f00:1', 'loopback'],
      ['NAT64', '64:ff9b::169.254.169.254', 'linkLocal'],
      ['NAT64', '64:ff9b::a00:1', 'private'],
      ['6to4', '2002:7f00:1::', 'loopback'],
      ['6to4', '2002:a9fe:a9fe::1', 'linkLocal'],
      ['6to4', '2002:c0a8:101:1::1', 'private'],
      // Teredo: server 65.54.227.120, client 127.0.0.1 (stored inverted: 80ff:fffe).
      ['Teredo', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'],
      ['Teredo', '2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'],
    ])('refuses %s %s (%s)', (_, address, range) => {
      expect(blockedRangeOf(address)).toBe(range);
    });

    it.each([
      ['mapped', '::ffff:8.8.8.8'],
      ['compatible', '::808:808'],
      ['NAT64', '64:ff9b::808:808'],
      ['NAT64', '64:ff9b::8.8.8.8'],
      ['6to4', '2002:808:808::1'],
      ['Teredo', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
    ])('accepts %s %s, which embeds 8.8.8.8', (_, address) => {
      expect(blockedRangeOf(address)).toBeUndefined();
    });

    it('refuses the compatible form as a URL writes it', () => {
      const host = hostOf(new URL('http://[::127.0.0.1]/'));
      expect(host).toBe('::7f00:1');
      expect(() => assertPublicLiteral(host)).toThrow('Target ::7f00:1 is not a public address');
    });
  });

  // Special-purpose ranges that ipaddr.js 1.x counted as unicast; the guard needs ipaddr.js 2.
  it.each([
    ['198.18.0.1', 'reserved'],
    ['100::1', 'discard'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:2::1', 'benchmarking'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRangeOf(address)).toBe(range);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '192.169.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
  ])('accepts the public address %s', (address) => {
    expect(blockedRangeOf(address)).toBeUndefined();
  });

  it('throws on what is not an IP address', () => {
    expect(() => blockedRangeOf('hooks.example.com')).toThrow('Not an IP address');
  });

  it('strips the brackets of an IPv6 URL host', () => {
    expect(hostOf(new URL('https://[::1]:8443/hook'))).toBe('::1');
    expect(hostOf(new URL('https://hooks.example.com/x'))).toBe('hooks.example.com');
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolve = async (): Promise<LookupAddress[]> => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    // The refusal names the host as given, never the internal address it resolved to.
    await expect(assertPublicHost('mixed.example', resolve)).rejects.toThrow(
      new BlockedTargetError('mixed.example', false),
    );
    await expect(assertPublicHost('mixed.example', resolve)).rejects.toThrow(
      /^Target mixed\.example does not resolve to a public address$/,
    );
    await expect(
      assertPublicHost('ok.example', async () => [{ address: '93.184.216.34', family: 4 }]),
    ).resolves.toBeUndefined();
    await expect(assertPublicHost('169.254.169.254', resolve)).rejects.toBeInstanceOf(
      BlockedTargetError,
    );
  });

  it('refuses IP literals, which never reach a socket lookup', () => {
    expect(() => assertPublicLiteral('10.0.0.1')).toThrow(
      'Target 10.0.0.1 is not a public address',
    );
    expect(() => assertPublicLiteral('8.8.8.8')).not.toThrow();
    expect(() => assertPublicLiteral('hooks.example.com')).not.toThrow();
  });

  describe('connect-time lookup', () => {
    const fakeDns =
      (answer: LookupAddress[]) =>
      (
        _host: string,
        options: { all?: boolean },
        cb: (e: null, a: string | LookupAddress[], f?: number) => void,
      ) => (options.all ? cb(null, answer) : cb(null, answer[0].address, answer[0].family));

    const run = (answer: LookupAddress[], all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        publicOnlyLookup(fakeDns(answer))('rebind.example', { all }, (error, address) =>
          error ? reject(error) : resolve(address),
        ),
      );

    it('passes public answers through in both callback shapes', async () => {
      const answer = [{ address: '93.184.216.34', family: 4 }];
      await expect(run(answer, true)).resolves.toEqual(answer);
      await expect(run(answer, false)).resolves.toBe('93.184.216.34');
    });

    it('fails the connection when the name now resolves to a private address (DNS rebinding)', async () => {
      await expect(run([{ address: '127.0.0.1', family: 4 }], false)).rejects.toThrow(
        /^Target rebind\.example does not resolve to a public address$/,
      );
      await expect(
        run(
          [
            { address: '93.184.216.34', family: 4 },
            { address: '::1', family: 6 },
          ],
          true,
        ),
      ).rejects.toBeInstanceOf(BlockedTargetError);
    });
  });
});
