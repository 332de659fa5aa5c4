import { jsonDepthExceeds } from './json-depth.middleware';

describe('jsonDepthExceeds', () => {
  it('measures objects and arrays alike', () => {
    expect(jsonDepthExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(jsonDepthExceeds('scalar', 0)).toBe(false);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    expect(jsonDepthExceeds(deep, 32)).toBe(true);
  });
});
