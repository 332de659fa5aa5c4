import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './api-key-secret';

describe('API key secrets', () => {
  it('generates svc_live_/svc_test_ plus 32 base62 characters', () => {
    expect(generateApiKey('live')).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(generateApiKey('test')).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('live')));
    expect(keys.size).toBe(2000);
  });

  it('draws characters from the whole alphabet', () => {
    const chars = new Set(
      Array.from({ length: 200 }, () => generateApiKey('live').slice(9)).join(''),
    );
    expect(chars.size).toBe(62);
  });

  it('hashes with SHA-256 in hex', () => {
    expect(hashApiKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('shows a 12-character prefix and recognises the key format', () => {
    const key = 'svc_test_0123456789abcdefghijABCDEFGHIJKL';
    expect(API_KEY_PATTERN.test(key)).toBe(true);
    expect(displayPrefix(key)).toBe('svc_test_012');
    expect(API_KEY_PATTERN.test('svc_live_x')).toBe(false);
    expect(API_KEY_PATTERN.test('svc_prod_0123456789abcdefghijABCDEFGHIJKL')).toBe(false);
  });
});
