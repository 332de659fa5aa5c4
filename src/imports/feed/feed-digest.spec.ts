import { gzipSync } from 'node:zlib';
import { FeedDigest } from './feed-digest';

async function digestOf(bytes: Buffer, gzip: boolean, maxBytes = 1e8, chunk = 16_384) {
  const digest = new FeedDigest(gzip, maxBytes);
  for (let at = 0; at < bytes.length; at += chunk)
    await digest.update(bytes.subarray(at, at + chunk));
  return digest.digest();
}

describe('FeedDigest', () => {
  const feed = Buffer.from('{"externalId":"a-1"}\n'.repeat(200_000)); // 4.2 MB, inflated far past a chunk

  it('knows a feed by its content: plain, gzipped, gzipped at another time, with a BOM', async () => {
    const plain = await digestOf(feed, false);
    const later = gzipSync(feed);
    later.writeUInt32LE(1_800_000_000, 4); // gzip's header time
    expect(await digestOf(gzipSync(feed), true)).toBe(plain);
    expect(await digestOf(later, true)).toBe(plain);
    expect(await digestOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), feed]), false)).toBe(
      plain,
    );
    expect(await digestOf(Buffer.from('{"externalId":"a-2"}\n'), false)).not.toBe(plain);
  });

  it('knows a gzip body that does not inflate by its bytes as sent', async () => {
    const cut = gzipSync(feed).subarray(0, 50);
    const sent = await digestOf(cut, true);
    expect(sent).toMatch(/^sent:[0-9a-f]{64}$/);
    expect(await digestOf(cut, true)).toBe(sent);
    // inflating past 4 times the limit on what is sent: the bytes as sent too
    expect(await digestOf(gzipSync(feed), true, 100_000)).toMatch(/^sent:/);
  });
});
