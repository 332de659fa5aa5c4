import {
  DomainError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import {
  decideClaimedKey,
  errorOutcome,
  storedResponse,
  successOutcome,
} from './idempotency-outcome';

describe('decideClaimedKey', () => {
  const error = { code: ErrorCode.NOT_FOUND, message: 'Listing not found.' };

  it('replays the stored answer of the same request', () => {
    expect(
      decideClaimedKey({ fingerprint: 'f', statusCode: 201, response: { data: { id: 1 } } }, 'f'),
    ).toEqual({
      kind: 'replay',
      outcome: { status: 201, data: { id: 1 }, error: undefined, replayed: true },
    });
    expect(
      decideClaimedKey({ fingerprint: 'f', statusCode: 404, response: { error } }, 'f'),
    ).toEqual({ kind: 'replay', outcome: { status: 404, data: undefined, error, replayed: true } });
  });

  it('refuses a different request, or a key with no row', () => {
    expect(
      decideClaimedKey({ fingerprint: 'f', statusCode: 201, response: { data: 1 } }, 'g'),
    ).toEqual({ kind: 'conflict' });
    expect(decideClaimedKey(undefined, 'f')).toEqual({ kind: 'conflict' });
  });

  it('tells a row without its answer apart (a different request is still a conflict)', () => {
    const claimed = { fingerprint: 'f', statusCode: null, response: null };
    expect(decideClaimedKey(claimed, 'f')).toEqual({ kind: 'in-progress' });
    expect(decideClaimedKey(claimed, 'g')).toEqual({ kind: 'conflict' });
  });
});

describe('errorOutcome', () => {
  it('keeps client errors with their status, message and details', () => {
    const details = [{ field: 'title', message: 'title is required' }];
    expect(errorOutcome(new ValidationError(details))).toEqual({
      status: 400,
      error: { code: ErrorCode.VALIDATION_ERROR, message: 'The request is invalid.', details },
      replayed: false,
    });
    expect(errorOutcome(new NotFoundError('Listing'))?.status).toBe(404);
  });

  it('keeps nothing for server errors, 429s and anything not a DomainError', () => {
    expect(errorOutcome(new DomainError(ErrorCode.SERVER_ERROR, 'boom'))).toBeUndefined();
    expect(errorOutcome(new RateLimitedError(60))).toBeUndefined();
    expect(errorOutcome(new Error('connection lost'))).toBeUndefined();
    expect(errorOutcome('thrown string')).toBeUndefined();
  });
});

describe('storedResponse', () => {
  it('stores what a replay answers, never the replay flag or status', () => {
    expect(storedResponse(successOutcome(201, { id: 'a' }))).toEqual({
      data: { id: 'a' },
      error: undefined,
    });
    const failed = errorOutcome(new NotFoundError('Listing'))!;
    expect(storedResponse(failed)).toEqual({ data: undefined, error: failed.error });
  });

  it('replays, after a JSON round trip, the outcome it was built from', () => {
    const first = successOutcome(201, { id: 'a', tags: ['x'] });
    const response = JSON.parse(JSON.stringify(storedResponse(first)));
    const decision = decideClaimedKey({ fingerprint: 'f', statusCode: 201, response }, 'f');
    expect(decision).toEqual({ kind: 'replay', outcome: { ...first, replayed: true } });
  });
});
