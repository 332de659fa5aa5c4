import { ValidateBy } from 'class-validator';

/** The URL parser Node requests with accepts it (an IPv6 host with a zone id, `%25eth0`, it does not). */
function requestable(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Beside `@IsUrl` (validator.js' rules, which the OpenAPI document shows as `format: uri`): an
 * http(s) URL the WHATWG parser accepts too, the one the service fetches with. A URL only
 * validator.js accepts would fail later, as a 500 or a failed fetch.
 */
export function IsRequestableUrl(message: string): PropertyDecorator {
  return ValidateBy({
    name: 'isRequestableUrl',
    validator: { validate: requestable, defaultMessage: () => message },
  });
}

function withoutUserInfo(value: unknown): boolean {
  if (typeof value !== 'string') return true;
  try {
    const { username, password } = new URL(value);
    return username === '' && password === '';
  } catch {
    return true;
  }
}

/**
 * No user info (`https://user:pw@host/`): a password in a URL the service keeps would be stored,
 * logged and shown with the record. A value that is no URL is left to the other checks.
 */
export function HasNoUserInfo(message: string): PropertyDecorator {
  return ValidateBy({
    name: 'hasNoUserInfo',
    validator: { validate: withoutUserInfo, defaultMessage: () => message },
  });
}
