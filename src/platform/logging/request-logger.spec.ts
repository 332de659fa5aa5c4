import { withoutSecrets } from './request-logger';

describe('withoutSecrets', () => {
  it('hides the value of a token query parameter, wherever it is', () => {
    expect(withoutSecrets('/dashboard/reset-password?token=abc_DEF-123')).toBe(
      '/dashboard/reset-password?token=[redacted]',
    );
    expect(withoutSecrets('/dashboard/verify-email?x=1&token=abc&y=2')).toBe(
      '/dashboard/verify-email?x=1&token=[redacted]&y=2',
    );
  });

  it('leaves other URLs as they are', () => {
    expect(withoutSecrets('/v1/listings?limit=20&sort=newest')).toBe(
      '/v1/listings?limit=20&sort=newest',
    );
    expect(withoutSecrets('/v1/listings?tokens=1')).toBe('/v1/listings?tokens=1');
  });
});
