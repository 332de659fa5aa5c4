import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ASSETS_PATH = '/dashboard/assets';

export interface Asset {
  url: string;
  body: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The files the pages load: the pinned htmx and uPlot builds, and the dashboard's own. */
const SOURCES: Record<string, () => string> = {
  'htmx.js': () => require.resolve('htmx.org/dist/htmx.min.js'),
  'uplot.js': () => require.resolve('uplot/dist/uPlot.iife.min.js'),
  'uplot.css': () => require.resolve('uplot/dist/uPlot.min.css'),
  'dashboard.js': () => join(__dirname, '..', 'assets', 'dashboard.js'),
  'dashboard.css': () => join(__dirname, '..', 'assets', 'dashboard.css'),
};

/**
 * The manifest, built once at start: each asset under a name with its content's hash
 * (`htmx.3f2a….js`), so it can be cached for a year and a new build is a new URL.
 */
export class AssetManifest {
  private readonly byName = new Map<string, Asset>();
  private readonly byUrl = new Map<string, Asset>();

  constructor() {
    for (const [name, source] of Object.entries(SOURCES)) {
      const body = readFileSync(source());
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      const dot = name.lastIndexOf('.');
      const ext = name.slice(dot + 1);
      const file = `${name.slice(0, dot)}.${hash}.${ext}`;
      const asset = { url: `${ASSETS_PATH}/${file}`, body, contentType: TYPES[ext] };
      this.byName.set(name, asset);
      this.byUrl.set(file, asset);
    }
  }

  /** The hashed URL of `name` (`htmx.js`, `dashboard.css`…), for templates. */
  url(name: string): string {
    const asset = this.byName.get(name);
    if (!asset) throw new Error(`No dashboard asset ${name}`);
    return asset.url;
  }

  /** The asset a hashed file name serves, or undefined. */
  file(file: string): Asset | undefined {
    return this.byUrl.get(file);
  }

  urls(): Record<string, string> {
    return Object.fromEntries([...this.byName].map(([name, asset]) => [name, asset.url]));
  }
}
