import type { LookupAddress } from 'node:dns';
import {
  assertPublicHost,
  assertPublicLiteral,
  BlockedTargetError,
  blockedRangeOf,
  hostOf,
  publicOnlyLookup,
} from './address-guard';

describe('SSRF guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['fd00:ec2::254', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['100.100.100.200', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['192.0.2.5', 'documentation'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRangeOf(address)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700::1111'])(
    'accepts the public address %s',
    (address) => {
      expect(blockedRangeOf(address)).toBeUndefined();
    },
  );

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
