/**
 * The image-pipeline scenarios of `npm run bench` (alone with BENCH_ONLY=images):
 * - renditions per second of the worker (URL images fetched from a local server, rendered, stored,
 *   marked ready) against a bare-sharp floor in this process rendering the same three renditions
 *   of the same sources at the same concurrency, in alternating rounds;
 * - GET /listings/:id p95 while the worker works through a burst of 500 URL images, against its p95
 *   alone;
 * - one image added by a single request (POST /listings), from the request to its status `ready`,
 *   while another account's 10,000 bulk-created images wait, against the same alone.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pLimit from 'p-limit';
import type { Client } from 'pg';
import sharp from 'sharp';
import { getByIdP95 } from './lib/get-p95';
import { RUN_SECONDS } from './lib/load';
import { BenchAccount, createAccount, LISTING_BODY, seedListings } from './lib/seed';

export interface ImagesBenchContext {
  db: Client;
  base: string;
  adminToken: string;
  /** IMAGE_CONCURRENCY the bench's worker runs with: the floor renders as many at once */
  imageConcurrency: number;
  rounds: number;
  warmupSeconds: number;
}

/** Distinct sources: camera-sized JPEGs (6 MP, ~1–2 MB), each served under many URLs. */
const SOURCES = 6;
const SOURCE_SIZE = { width: 3000, height: 2000 };
const IMAGES_PER_LISTING = 10;
/** Images per rendition round: long enough that the dispatcher's first tick is a small share. */
const ROUND_IMAGES = 120;
const BURST_IMAGES = 500;
const BACKLOG_IMAGES = 10_000;
/** Single-request images timed per side: their median is compared. */
const SINGLE_SAMPLES = 5;
const GET_CONNECTIONS = 4;
/** The decided rendition sizes (longest side) and encoding: the floor's own copy, on purpose. */
const SIZES = [320, 960, 1600];
const WEBP_QUALITY = 80;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** Blurred noise: photo-like detail, so decoding and encoding cost what a photo costs. */
async function makeSources(): Promise<Buffer[]> {
  return Promise.all(
    Array.from({ length: SOURCES }, (_, i) =>
      sharp({
        create: {
          ...SOURCE_SIZE,
          channels: 3,
          background: { r: 40 * i, g: 120, b: 200 - 20 * i },
          noise: { type: 'gaussian', mean: 110 + 10 * i, sigma: 40 },
        },
      })
        .blur(1.5)
        .jpeg({ quality: 85 })
        .toBuffer(),
    ),
  );
}

/** GET /s/<n>.jpg?u=<anything> answers source n % SOURCES: every URL a new image to the service. */
async function serveSources(sources: Buffer[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const n = Number(/^\/s\/(\d+)\.jpg/.exec(req.url ?? '')?.[1] ?? NaN);
    if (!Number.isInteger(n)) return res.writeHead(404).end();
    const body = sources[n % sources.length];
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': body.length }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let urlSerial = 0;
const imageUrl = (sourcesUrl: string, n: number) => `${sourcesUrl}/s/${n}.jpg?u=${++urlSerial}`;

/** Creates listings carrying `count` new URL images in all, in bulk requests of up to 50 listings. */
async function createWithImages(
  base: string,
  account: BenchAccount,
  sourcesUrl: string,
  count: number,
) {
  const listings = Math.ceil(count / IMAGES_PER_LISTING);
  for (let first = 0; first < listings; first += 50) {
    const items = Array.from({ length: Math.min(50, listings - first) }, (_, i) => ({
      ...LISTING_BODY,
      images: Array.from({ length: IMAGES_PER_LISTING }, (_, order) => ({
        url: imageUrl(sourcesUrl, (first + i) * IMAGES_PER_LISTING + order),
        order,
      })),
    }));
    const res = await fetch(`${base}/v1/listings/bulk`, {
      method: 'POST',
      headers: { ...auth(account.key), 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    if (res.status >= 300) throw new Error(`bulk answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
}

async function imageStates(db: Client, accountId: string) {
  const { rows } = await db.query<{ status: string; n: number }>(
    `SELECT i.status, count(*)::int AS n FROM listing_images i
     JOIN listings l ON l.id = i.listing_id WHERE l.account_id = $1 GROUP BY i.status`,
    [accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
}

/** Polls the database every 50 ms until none of the account's images is pending. */
async function settled(db: Client, accountId: string, timeoutMs = 600_000) {
  const started = Date.now();
  for (;;) {
    const states = await imageStates(db, accountId);
    if (!states.pending) return states;
    if (Date.now() - started > timeoutMs)
      throw new Error(`images still pending: ${states.pending}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The service: ROUND_IMAGES new URL images, from the create until the last one is processed. */
async function serviceRound(ctx: ImagesBenchContext, sourcesUrl: string, round: number) {
  const account = await createAccount(ctx.base, ctx.adminToken, `Bildhuset ${round} AB`);
  const started = Date.now();
  await createWithImages(ctx.base, account, sourcesUrl, ROUND_IMAGES);
  const states = await settled(ctx.db, account.id);
  const seconds = (Date.now() - started) / 1000;
  if (states.failed) throw new Error(`${states.failed} images failed: ${JSON.stringify(states)}`);
  return (ROUND_IMAGES * 3) / seconds;
}

/** Bare sharp: decode into the large size once, encode the three, `concurrency` images at once. */
async function floorRound(sources: Buffer[], concurrency: number) {
  const limit = pLimit(concurrency);
  const started = Date.now();
  await Promise.all(
    Array.from({ length: ROUND_IMAGES }, (_, n) =>
      limit(async () => {
        const large = await sharp(sources[n % sources.length])
          .rotate()
          .resize(SIZES[2], SIZES[2], { fit: 'inside', withoutEnlargement: true })
          .raw()
          .toBuffer({ resolveWithObject: true });
        const raw = {
          width: large.info.width,
          height: large.info.height,
          channels: large.info.channels,
        };
        await Promise.all(
          SIZES.map((size) =>
            sharp(large.data, { raw })
              .resize(size, size, { fit: 'inside', withoutEnlargement: true })
              .webp({ quality: WEBP_QUALITY })
              .toBuffer(),
          ),
        );
      }),
    ),
  );
  return (ROUND_IMAGES * 3) / ((Date.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Milliseconds from POST /listings with one URL image to that image's status `ready`. */
async function singleImageMs(ctx: ImagesBenchContext, account: BenchAccount, sourcesUrl: string) {
  const started = Date.now();
  const res = await fetch(`${ctx.base}/v1/listings`, {
    method: 'POST',
    headers: { ...auth(account.key), 'content-type': 'application/json' },
    body: JSON.stringify({ ...LISTING_BODY, images: [{ url: imageUrl(sourcesUrl, 0) }] }),
  });
  if (res.status !== 201) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
  const imageId = ((await res.json()) as { data: { images: { id: string }[] } }).data.images[0].id;
  for (;;) {
    const { rows } = await ctx.db.query<{ status: string }>(
      'SELECT status FROM listing_images WHERE id = $1',
      [imageId],
    );
    if (rows[0].status === 'ready') return Date.now() - started;
    if (rows[0].status === 'failed') throw new Error(`image ${imageId} failed`);
    if (Date.now() - started > 300_000) throw new Error(`image ${imageId} still pending`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * One single-request image alone, then while another account's BACKLOG_IMAGES bulk images wait;
 * the backlog is dropped afterwards (marked failed), so later scenarios find an idle worker.
 */
async function imageDuringBacklog(ctx: ImagesBenchContext, sourcesUrl: string) {
  const seller = await createAccount(ctx.base, ctx.adminToken, 'Enskild Säljare AB');
  const alone: number[] = [];
  for (let i = 0; i < SINGLE_SAMPLES; i++) alone.push(await singleImageMs(ctx, seller, sourcesUrl));
  const dealer = await createAccount(ctx.base, ctx.adminToken, 'Nattlig Bildimport AB');
  await createWithImages(ctx.base, dealer, sourcesUrl, BACKLOG_IMAGES);
  const during: number[] = [];
  const waiting: number[] = [];
  try {
    for (let i = 0; i < SINGLE_SAMPLES; i++) {
      waiting.push((await imageStates(ctx.db, dealer.id)).pending ?? 0);
      during.push(await singleImageMs(ctx, seller, sourcesUrl));
    }
  } finally {
    await ctx.db.query(
      `UPDATE listing_images SET status = 'failed', error_reason = 'unreachable',
         error_message = 'bench: backlog dropped'
       WHERE account_id = $1 AND status = 'pending'`,
      [dealer.id],
    );
  }
  return { alone, during, waiting };
}

export async function benchImages(ctx: ImagesBenchContext) {
  const sources = await makeSources();
  const { server, url: sourcesUrl } = await serveSources(sources);
  try {
    // Warm-up of both sides (the worker's first sharp call loads libvips), unrecorded.
    await serviceRound(ctx, sourcesUrl, 0);
    await floorRound(sources, ctx.imageConcurrency);
    const service: number[] = [];
    const floor: number[] = [];
    for (let round = 1; round <= ctx.rounds; round++) {
      service.push(await serviceRound(ctx, sourcesUrl, round));
      floor.push(await floorRound(sources, ctx.imageConcurrency));
    }
    const servicePerSecond = Math.round(median(service));
    const floorPerSecond = Math.round(median(floor));
    const renditionsRatio = Number((servicePerSecond / floorPerSecond).toFixed(2));
    console.log(
      `Renditions/s (${ROUND_IMAGES} images × 3, IMAGE_CONCURRENCY ${ctx.imageConcurrency}, median of ${ctx.rounds}): ` +
        `service ${servicePerSecond} [${service.map(Math.round).join(', ')}], bare sharp ${floorPerSecond} ` +
        `[${floor.map(Math.round).join(', ')}]: ratio ${renditionsRatio}`,
    );

    const reader = await createAccount(ctx.base, ctx.adminToken, 'Bildläsare AB');
    const ids = await seedListings(ctx.db, reader.id, 10_000);
    await getByIdP95(ctx.base, reader.key, ids, GET_CONNECTIONS, ctx.warmupSeconds);
    const alone = await getByIdP95(ctx.base, reader.key, ids, GET_CONNECTIONS);
    const burster = await createAccount(ctx.base, ctx.adminToken, 'Bildskur AB');
    await createWithImages(ctx.base, burster, sourcesUrl, BURST_IMAGES);
    const during = await getByIdP95(ctx.base, reader.key, ids, GET_CONNECTIONS);
    const pendingAfter = (await imageStates(ctx.db, burster.id)).pending ?? 0;
    const burstStates = await settled(ctx.db, burster.id);
    const getRatio = Number((during.p95 / Math.max(alone.p95, 0.1)).toFixed(2));
    console.log(
      `GET /listings/:id p95 (${GET_CONNECTIONS} connections, ${RUN_SECONDS} s) alone ${alone.p95} ms (${alone.rps} req/s), ` +
        `during a burst of ${BURST_IMAGES} URL images ${during.p95} ms (${during.rps} req/s): ratio ${getRatio}; ` +
        `${pendingAfter} images still pending when the run ended; burst ${JSON.stringify(burstStates)}`,
    );

    const single = await imageDuringBacklog(ctx, sourcesUrl);
    const singleAlone = median(single.alone);
    const singleDuring = median(single.during);
    const backlogRatio = Number((singleDuring / singleAlone).toFixed(2));
    console.log(
      `One API image to ready (median of ${SINGLE_SAMPLES}): alone ${singleAlone} ms [${single.alone.join(', ')}], ` +
        `while another account's ${BACKLOG_IMAGES} bulk images wait ${singleDuring} ms [${single.during.join(', ')}] ` +
        `(pending then: ${single.waiting.join(', ')}): ratio ${backlogRatio}`,
    );
    return {
      renditionsVsSharpFloor: {
        value: renditionsRatio,
        target: `≥ 0.6 (${servicePerSecond} vs ${floorPerSecond} renditions/s)`,
        met: renditionsRatio >= 0.6,
      },
      getP95DuringImageBurst: {
        value: getRatio,
        target: `≤ 1.5 (p95 ${alone.p95} ms alone, ${during.p95} ms during)`,
        met: getRatio <= 1.5 && pendingAfter > 0 && !burstStates.failed,
      },
      imageDuringBacklogVsAlone: {
        value: backlogRatio,
        target: `≤ 3 (${singleAlone} ms alone, ${singleDuring} ms while ${BACKLOG_IMAGES} bulk images wait)`,
        met: backlogRatio <= 3 && Math.min(...single.waiting) > BACKLOG_IMAGES / 2,
      },
    };
  } finally {
    server.close();
  }
}
