import sharp from 'sharp';

const canvas = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#c03020' } });

/** A JPEG as a phone takes it: rotated by EXIF orientation 6, with camera make and GPS position. */
export function jpegWithGps(width = 64, height = 32): Promise<Buffer> {
  return canvas(width, height)
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'TestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '59/1 20/1 0/1' },
    })
    .toBuffer();
}

export const png = (width = 20, height = 10) => canvas(width, height).png().toBuffer();
export const webp = (width = 20, height = 10) => canvas(width, height).webp().toBuffer();
export const gif = () => canvas(8, 8).gif().toBuffer();

/** A supertest parser keeping the body as raw bytes: `.buffer(true).parse(rawBytes)`. */
export function rawBytes(
  res: import('stream').Stream,
  callback: (err: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}
