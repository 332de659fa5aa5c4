import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookup } from 'node:dns';
import { text } from 'node:stream/consumers';
import type { LookupFunction } from './dns-lookup';
import { FetchError, GuardedFetch } from './guarded-fetch';

const LIMITS = { timeoutMs: 2_000, maxBytes: 1_000, maxRedirects: 3 };

describe('GuardedFetch', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const hops = Number(url.searchParams.get('hops') ?? 0);
      if (url.pathname === '/redirect')
        return void res
          .writeHead(302, { Location: hops > 1 ? `/redirect?hops=${hops - 1}` : '/ok' })
          .end();
      if (url.pathname === '/file-redirect')
        return void res.writeHead(302, { Location: 'file:///etc/passwd' }).end();
      if (url.pathname === '/bad-redirect')
        return void res.writeHead(302, { Location: 'http://exa mple.com/x.jpg' }).end();
      if (url.pathname === '/ok') return void res.end('line 1\nline 2\n');
      if (url.pathname === '/big') return void res.end('x'.repeat(5_000));
      if (url.pathname === '/drip') {
        res.writeHead(200); // no Content-Length: the cap applies while streaming
        const timer = setInterval(() => res.write('x'.repeat(400)), 5);
        return void res.on('close', () => clearInterval(timer));
      }
      if (url.pathname === '/silent') return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const open = new GuardedFetch(lookup as LookupFunction, true);
  const failure = async (promise: Promise<unknown>) => {
    try {
      const result = await promise;
      if (result && typeof result === 'object' && 'body' in result)
        await text((result as { body: NodeJS.ReadableStream }).body);
    } catch (error) {
      return error as FetchError;
    }
    throw new Error('expected a failure');
  };

  it('streams a 2xx body', async () => {
    const fetched = await open.get(`${base}/ok`, LIMITS);
    expect(await text(fetched.body)).toBe('line 1\nline 2\n');
  });

  it('follows up to maxRedirects redirects, and refuses one more', async () => {
    expect(await text((await open.get(`${base}/redirect?hops=3`, LIMITS)).body)).toContain(
      'line 1',
    );
    expect((await failure(open.get(`${base}/redirect?hops=4`, LIMITS))).reason).toBe(
      'too_many_redirects',
    );
  });

  it('fails a redirect to a Location that is no URL as the server error it is', async () => {
    const error = await failure(open.get(`${base}/bad-redirect`, LIMITS));
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ reason: 'http_error', status: 302 });
    expect(error.message).toBe('The URL redirected (HTTP 302) to an invalid Location.');
  });

  it('fails a non-2xx answer with its status', async () => {
    const error = await failure(open.get(`${base}/missing`, LIMITS));
    expect(error).toMatchObject({ reason: 'http_error', status: 404 });
  });

  it('refuses a body over the limit, declared or streamed', async () => {
    expect((await failure(open.get(`${base}/big`, LIMITS))).reason).toBe('too_large');
    expect((await failure(open.get(`${base}/drip`, LIMITS))).reason).toBe('too_large');
  });

  it('gives up at the deadline', async () => {
    const error = await failure(open.get(`${base}/silent`, { ...LIMITS, timeoutMs: 200 }));
    expect(error.reason).toBe('timeout');
  });

  it('refuses loopback by literal, by name and embedded in IPv6', async () => {
    const guarded = new GuardedFetch(lookup as LookupFunction, false);
    expect((await failure(guarded.get(`${base}/ok`, LIMITS))).reason).toBe('blocked_address');
    const port = (server.address() as AddressInfo).port;
    expect((await failure(guarded.get(`http://localhost:${port}/ok`, LIMITS))).reason).toBe(
      'blocked_address',
    );
    expect((await failure(guarded.get('http://[::ffff:127.0.0.1]/', LIMITS))).reason).toBe(
      'blocked_address',
    );
  });

  it('tells a refused connection by its call and code, never the address or port behind it', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(open.get(`http://localhost:${port}/feed`, LIMITS));
    expect(error).toMatchObject({ reason: 'unreachable' });
    expect(error.message).toBe('The URL could not be reached (connect ECONNREFUSED).');
  });

  it('fetches only http and https, and fails a redirect to another scheme at once', async () => {
    expect((await failure(open.get('ftp://127.0.0.1/feed', LIMITS))).reason).toBe(
      'unsupported_scheme',
    );
    const error = await failure(open.get(`${base}/file-redirect`, LIMITS));
    expect(error).toMatchObject({ reason: 'unsupported_scheme' });
    expect(error.message).toBe('Only http and https URLs can be fetched, not file:.');
  });
});
