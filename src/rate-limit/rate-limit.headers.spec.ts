import { rateLimitHeaders } from './rate-limit.headers';

describe('rate-limit headers', () => {
  it('states the limit, what is left and when a slot frees, in both syntaxes', () => {
    expect(
      rateLimitHeaders({ limit: 300, remaining: 299, resetSeconds: 60, windowSeconds: 60 }),
    ).toEqual({
      'X-RateLimit-Limit': '300',
      'X-RateLimit-Remaining': '299',
      'X-RateLimit-Reset': '60',
      'RateLimit-Policy': '300;w=60',
      RateLimit: 'limit=300, remaining=299, reset=60',
    });
  });

  it('shows nothing left when the window is full', () => {
    const headers = rateLimitHeaders({
      limit: 30,
      remaining: 0,
      resetSeconds: 12,
      windowSeconds: 60,
    });
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers.RateLimit).toBe('limit=30, remaining=0, reset=12');
  });
});
