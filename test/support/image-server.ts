import http from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jpegWithGps, pixelBomb, png } from './images';

/** A stand-in for integrators' image servers, on 127.0.0.1; counts the requests per path. */
export class ImageServer {
  readonly hits = new Map<string, number>();
  /** /flaky answers 500 this many more times, then an image */
  flakyFailures = 0;
  /** /later.jpg answers 404 until this is true */
  laterReady = false;
  /** /held waits for this before it answers */
  held: { arrived: () => void; release: Promise<void> } | undefined;
  private server!: http.Server;
  private bodies!: { jpeg: Buffer; png: Buffer; smallPng: Buffer; bomb: Buffer };
  base = '';

  async start(): Promise<void> {
    this.bodies = {
      jpeg: await jpegWithGps(64, 32),
      png: await png(2000, 1000),
      smallPng: await png(640, 320),
      bomb: await pixelBomb(),
    };
    this.server = http.createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = req.url!.split('?')[0];
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    const image = (body: Buffer, type: string) =>
      void res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
    switch (path) {
      case '/photo.jpg':
        return image(this.bodies.jpeg, 'image/jpeg');
      case '/wide.png':
        return image(this.bodies.png, 'image/png');
      case '/small.png':
        return image(this.bodies.smallPng, 'image/png');
      case '/bomb.png':
        return image(this.bodies.bomb, 'image/png');
      case '/page.html':
        return image(Buffer.from('<html>not a picture</html>'), 'image/jpeg');
      case '/later.jpg':
        if (this.laterReady) return image(this.bodies.jpeg, 'image/jpeg');
        return void res.writeHead(404).end();
      case '/missing.jpg':
        return void res.writeHead(404).end();
      case '/busy.jpg':
        return void res.writeHead(429, { 'retry-after': '1' }).end();
      case '/flaky.jpg':
        if (this.flakyFailures-- > 0) return void res.writeHead(500).end();
        return image(this.bodies.jpeg, 'image/jpeg');
      case '/loop.jpg':
        return void res.writeHead(302, { location: '/loop.jpg' }).end();
      case '/file-redirect.jpg':
        return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      case '/huge.jpg': {
        // Chunked, no Content-Length: only counting while streaming can stop it.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        const chunk = Buffer.alloc(1024 * 1024, 0xff);
        for (let i = 0; i < 12 && !res.destroyed; i++)
          if (!res.write(chunk)) await drainedOrClosed(res);
        return void res.end();
      }
      case '/drip.jpg': {
        // A byte now and then, so no socket idles: only the whole-fetch deadline ends it.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        const drip = setInterval(() => res.write(Buffer.from([0xff])), 50);
        res.on('close', () => clearInterval(drip));
        return;
      }
      case '/held.jpg': {
        this.held?.arrived();
        await this.held?.release;
        return image(this.bodies.jpeg, 'image/jpeg');
      }
      default:
        res.writeHead(404).end();
    }
  }
}

/** Waits for `drain` or `close`, whichever comes first, and leaves no listener for the other. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}
