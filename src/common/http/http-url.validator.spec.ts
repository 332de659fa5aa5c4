import { IsUrl, validateSync } from 'class-validator';
import { IsRequestableUrl } from './http-url.validator';

const MESSAGE = 'url must be an http(s) URL';

/** As the DTOs use it: beside validator.js' rules. */
class Target {
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: MESSAGE },
  )
  @IsRequestableUrl(MESSAGE)
  url: unknown;
}

const valid = (url: unknown) => validateSync(Object.assign(new Target(), { url })).length === 0;

describe('IsRequestableUrl beside IsUrl', () => {
  it('takes absolute http and https URLs, IP literals and hosts without a TLD included', () => {
    for (const url of [
      'https://img.example.com/a.jpg',
      'http://feeds.internal:8080/inventory.ndjson?key=1',
      'https://[2001:db8::1]/x',
      'http://10.0.0.5/feed',
      'http://localhost/feed',
    ])
      expect({ url, valid: valid(url) }).toEqual({ url, valid: true });
  });

  it('refuses what Node cannot request as written, and other schemes or shapes', () => {
    expect(
      validateSync(Object.assign(new Target(), { url: 'http://[fe80::1%25eth0]/' }))[0].constraints,
    ).toEqual({ isRequestableUrl: MESSAGE });
    for (const url of [
      'http://[fe80::1%25eth0]/feed',
      'ftp://x.example/feed',
      'img.example.com/a.jpg',
      'javascript:alert(1)',
      '',
      42,
      null,
    ])
      expect({ url, valid: valid(url) }).toEqual({ url, valid: false });
  });
});
