import sharp, { type Colour } from 'sharp';
import { RenderError, renderRenditions, type Rendered } from './render-renditions';

const RED = { r: 220, g: 20, b: 20 };
const BLUE = { r: 20, g: 20, b: 220 };

function solid(width: number, height: number, background: Colour = RED) {
  return sharp({ create: { width, height, channels: 3, background } });
}

/** Left half red, right half blue: shows which way the pixels were turned. */
async function halves(width: number, height: number) {
  const right = await solid(width / 2, height, BLUE)
    .png()
    .toBuffer();
  return solid(width, height).composite([{ input: right, left: width / 2, top: 0 }]);
}

async function sizes(rendered: Rendered) {
  const out: Record<string, string> = {};
  for (const [name, rendition] of Object.entries(rendered.renditions)) {
    const metadata = await sharp(rendition.data).metadata();
    expect(metadata.format).toBe('webp');
    expect([metadata.width, metadata.height]).toEqual([rendition.width, rendition.height]);
    out[name] = `${rendition.width}×${rendition.height}`;
  }
  return out;
}

async function failure(source: Buffer): Promise<RenderError> {
  const error = await renderRenditions(source).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RenderError);
  return error as RenderError;
}

/** One pixel of a rendition, as [r, g, b]. */
async function pixel(data: Buffer, left: number, top: number) {
  const rgb = await sharp(data).extract({ left, top, width: 1, height: 1 }).raw().toBuffer();
  return [...rgb.subarray(0, 3)];
}

describe('renderRenditions', () => {
  it('renders a 4000×3000 JPEG as WebP at 320, 960 and 1600 on the longest side', async () => {
    const rendered = await renderRenditions(await solid(4000, 3000).jpeg().toBuffer());
    expect(rendered).toMatchObject({ width: 4000, height: 3000, format: 'jpeg' });
    expect(await sizes(rendered)).toEqual({
      thumb: '320×240',
      medium: '960×720',
      large: '1600×1200',
    });
  });

  it('fits a portrait source by its height', async () => {
    const rendered = await renderRenditions(await solid(1500, 2000).jpeg().toBuffer());
    expect(await sizes(rendered)).toEqual({
      thumb: '240×320',
      medium: '720×960',
      large: '1200×1600',
    });
  });

  it('never upscales: a 200×100 PNG gives three 200×100 renditions', async () => {
    const rendered = await renderRenditions(await solid(200, 100).png().toBuffer());
    expect(rendered).toMatchObject({ width: 200, height: 100, format: 'png' });
    expect(await sizes(rendered)).toEqual({
      thumb: '200×100',
      medium: '200×100',
      large: '200×100',
    });
  });

  it('applies EXIF orientation 6: reports the turned size and turns the pixels', async () => {
    const source = await (
      await halves(400, 200)
    )
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const rendered = await renderRenditions(source);
    expect([rendered.width, rendered.height]).toEqual([200, 400]);
    expect(await sizes(rendered)).toEqual({
      thumb: '160×320',
      medium: '200×400',
      large: '200×400',
    });
    // Orientation 6 displays the image turned 90° clockwise: its left half (red) on top.
    const large = rendered.renditions.large.data;
    expect(await pixel(large, 100, 20)).toEqual([
      expect.closeTo(220, -1),
      expect.closeTo(20, -1),
      expect.closeTo(20, -1),
    ]);
    expect(await pixel(large, 100, 380)).toEqual([
      expect.closeTo(20, -1),
      expect.closeTo(20, -1),
      expect.closeTo(220, -1),
    ]);
  });

  it('strips metadata: no EXIF, ICC profile, XMP or orientation in any rendition', async () => {
    const source = await solid(800, 600)
      .jpeg()
      .withMetadata({ orientation: 3 })
      .withIccProfile('p3')
      .toBuffer();
    const before = await sharp(source).metadata();
    expect(before.exif).toBeDefined();
    expect(before.icc).toBeDefined();

    const rendered = await renderRenditions(source);
    for (const rendition of Object.values(rendered.renditions)) {
      const metadata = await sharp(rendition.data).metadata();
      expect(metadata.exif).toBeUndefined();
      expect(metadata.icc).toBeUndefined();
      expect(metadata.xmp).toBeUndefined();
      expect(metadata.iptc).toBeUndefined();
      expect(metadata.orientation).toBeUndefined();
    }
  });

  it.each([
    ['a WebP', 'webp', () => solid(640, 480).webp().toBuffer()],
    ['an AVIF', 'avif', () => solid(640, 480).avif().toBuffer()],
  ] as const)('accepts %s source', async (_, format, make) => {
    const rendered = await renderRenditions(await make());
    expect(rendered).toMatchObject({ width: 640, height: 480, format });
    expect(await sizes(rendered)).toEqual({
      thumb: '320×240',
      medium: '640×480',
      large: '640×480',
    });
  });

  it('keeps the transparency and colours of a 16-bit PNG with alpha', async () => {
    const source = await sharp({
      create: { width: 600, height: 400, channels: 4, background: { ...BLUE, alpha: 0.5 } },
    })
      .png()
      .toColourspace('rgb16')
      .toBuffer();
    const rendered = await renderRenditions(source);
    const { channels } = await sharp(rendered.renditions.thumb.data).stats();
    expect(channels.map((c) => Math.round(c.mean))).toEqual([
      expect.closeTo(20, -1),
      expect.closeTo(20, -1),
      expect.closeTo(220, -1),
      expect.closeTo(128, -1),
    ]);
  });

  it.each([
    ['a GIF', () => solid(50, 50).gif().toBuffer()],
    ['a TIFF', () => solid(50, 50).tiff().toBuffer()],
    [
      'an SVG',
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"/>'),
    ],
    ['a text file', async () => Buffer.from('id,title\n1,Sofa, barely used\n')],
    ['an empty buffer', async () => Buffer.alloc(0)],
    [
      'a JPEG cut in half',
      async () => {
        const jpeg = await solid(1000, 800).jpeg().toBuffer();
        return jpeg.subarray(0, jpeg.length / 2);
      },
    ],
    [
      'the first 100 bytes of a JPEG',
      async () => (await solid(1000, 800).jpeg().toBuffer()).subarray(0, 100),
    ],
  ])('refuses %s as not_an_image', async (_, make) => {
    expect((await failure(await make())).reason).toBe('not_an_image');
  });

  it('refuses a 48-megapixel PNG as too_many_pixels, judged from its header alone', async () => {
    const png = await solid(8000, 6000).png().toBuffer();
    const error = await failure(png);
    expect(error.reason).toBe('too_many_pixels');
    expect(error.message).toContain('8000×6000');
    // Its header without any pixel data gives the same answer: nothing was decoded.
    expect((await failure(png.subarray(0, 64))).reason).toBe('too_many_pixels');
  });
});
