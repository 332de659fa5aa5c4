import { createHash, randomInt } from 'node:crypto';
import type { ApiKeyKind } from '../auth/principal';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{32}$/;
const PREFIX_LENGTH = 12;

/** `length` characters drawn uniformly from base62 with a CSPRNG (randomInt avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

export function generateApiKey(kind: ApiKeyKind): string {
  return `svc_${kind}_${randomBase62(32)}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}
