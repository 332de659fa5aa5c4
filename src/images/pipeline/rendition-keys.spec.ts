import { otherRunKeys, renditionKeys } from './rendition-keys';

describe('renditionKeys', () => {
  const id = '9c3d6a0b-6ce6-4b28-a83c-99c37909e2a6';

  it('names the image, the run and the rendition, as one WebP path segment each', () => {
    expect(renditionKeys(id, 'abc123')).toEqual({
      thumb: `${id}-abc123-thumb.webp`,
      medium: `${id}-abc123-medium.webp`,
      large: `${id}-abc123-large.webp`,
    });
  });

  it('gives every run new keys, so a key never changes content', () => {
    const runs = Array.from({ length: 50 }, () => renditionKeys(id).thumb);
    expect(new Set(runs).size).toBe(50);
    // What the S3 driver accepts as a media key (s3.storage.ts).
    for (const key of runs) expect(key).toMatch(/^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/);
  });
});

describe('otherRunKeys', () => {
  const run = Object.values(renditionKeys('img', 'run2'));

  it('gives the pending keys this run did not write, of every other run', () => {
    const first = Object.values(renditionKeys('img', 'run0'));
    const second = Object.values(renditionKeys('img', 'run1'));
    expect(otherRunKeys([...first, ...run, ...second], run)).toEqual([...first, ...second]);
  });

  it('gives nothing when only this run, or no run, is pending', () => {
    expect(otherRunKeys(run, run)).toEqual([]);
    expect(otherRunKeys(null, run)).toEqual([]);
    expect(otherRunKeys([], [])).toEqual([]);
  });

  it('gives every pending key to an end that wrote no files (a recorded failure)', () => {
    expect(otherRunKeys(run, [])).toEqual(run);
  });
});
