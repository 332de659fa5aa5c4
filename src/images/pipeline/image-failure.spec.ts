import { FetchError } from '../../platform/outbound/guarded-fetch';
import { RenderError } from '../renditions/render-renditions';
import { imageFailureOf, MissingSourceError, retryAt } from './image-failure';

describe('imageFailureOf', () => {
  it.each([
    [new FetchError('unreachable', 'refused'), 'unreachable', true],
    [new FetchError('timeout', 'slow'), 'timeout', true],
    [new FetchError('http_error', '500', 500), 'http_error', true],
    [new FetchError('http_error', '503', 503), 'http_error', true],
    [new FetchError('http_error', '429', 429), 'http_error', true],
    [new FetchError('http_error', '404', 404), 'http_error', false],
    [new FetchError('http_error', '403', 403), 'http_error', false],
    [new FetchError('too_large', 'big'), 'too_large', false],
    [new FetchError('blocked_address', 'private'), 'blocked_address', false],
    // answers of the server, not network errors: no retry
    [new FetchError('too_many_redirects', 'loop'), 'too_many_redirects', false],
    [new FetchError('unsupported_scheme', 'file:'), 'unsupported_scheme', false],
    [new RenderError('not_an_image', 'text'), 'not_an_image', false],
    [new RenderError('too_many_pixels', 'bomb'), 'too_many_pixels', false],
    [new MissingSourceError('gone'), 'unreachable', false],
  ])('%p → %s, transient %p', (error, reason, transient) => {
    expect(imageFailureOf(error)).toEqual({ reason, message: error.message, transient });
  });

  it('leaves errors that are not the image’s (database, storage) to the caller', () => {
    expect(imageFailureOf(new Error('connection terminated'))).toBeUndefined();
    expect(imageFailureOf('string')).toBeUndefined();
  });
});

describe('retryAt', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const delays = [60_000, 600_000, 3_600_000];
  const transient = { reason: 'timeout', message: 'slow', transient: true } as const;

  it('waits 1 min, 10 min, 1 h after the 1st, 2nd and 3rd failed try, then gives up', () => {
    expect([0, 1, 2, 3].map((n) => retryAt(transient, n, delays, now)?.toISOString())).toEqual([
      '2030-01-01T00:01:00.000Z',
      '2030-01-01T00:10:00.000Z',
      '2030-01-01T01:00:00.000Z',
      undefined,
    ]);
  });

  it('never retries a failure that is not transient', () => {
    expect(retryAt({ ...transient, transient: false }, 0, delays, now)).toBeNull();
  });
});
