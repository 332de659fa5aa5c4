import { randomBytes } from 'node:crypto';
import type { RenditionName } from '../renditions/render-renditions';

/**
 * The storage keys of one processing run's renditions: `<imageId>-<run>-<name>.webp`. A run
 * writes keys no run wrote before, so a key never changes content (served as immutable) and a
 * run whose result is dropped deletes only its own files. One path segment, as media keys are.
 */
export function renditionKeys(
  imageId: string,
  run = randomBytes(6).toString('hex'),
): Record<RenditionName, string> {
  return {
    thumb: `${imageId}-${run}-thumb.webp`,
    medium: `${imageId}-${run}-medium.webp`,
    large: `${imageId}-${run}-large.webp`,
  };
}

/** The recorded pending keys that `run` did not write: files of other runs, whose results will be refused. */
export function otherRunKeys(pending: string[] | null, run: string[]): string[] {
  return (pending ?? []).filter((key) => !run.includes(key));
}
