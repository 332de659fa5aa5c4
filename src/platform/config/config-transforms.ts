import { Transform } from 'class-transformer';
import { registerDecorator, ValidationOptions } from 'class-validator';
import ms from 'ms';
import { isIP } from 'node:net';

/** Parses a duration such as `30d`, `90s` or `1500` (ms) into milliseconds; undefined when invalid. */
export function parseDuration(value: string): number | undefined {
  const parsed: unknown = /^\d+$/.test(value) ? Number(value) : ms(value as ms.StringValue);
  return typeof parsed === 'number' && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

/** Converts an integer string; anything else is left for the validator to reject by name. */
export const ToInt = () =>
  Transform(({ value }: { value: unknown }) =>
    /^-?\d+$/.test(String(value)) ? Number(value) : value,
  );

/** Converts a decimal string such as `1.5`; anything else is left for the validator to reject. */
export const ToNumber = () =>
  Transform(({ value }: { value: unknown }) =>
    /^-?\d+(\.\d+)?$/.test(String(value)) ? Number(value) : value,
  );

export const ToBool = () =>
  Transform(({ value }: { value: unknown }) => {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return value;
  });

/** Accepts a duration string and leaves it as a string; the config factory converts it. */
export function IsDuration(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isDuration',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be a positive duration such as 30d, 90s or 1500ms`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && parseDuration(value) !== undefined,
      },
    });
}

/** `1m, 10m,1h`: each part a duration (see parseDuration); undefined unless all are. */
export function parseDurationList(value: string): number[] | undefined {
  // parseDuration throws on an empty string rather than answering undefined.
  const parts = value.split(',').map((part) => part.trim());
  const durations = parts.map((part) => (part === '' ? undefined : parseDuration(part)));
  return durations.every((d) => d !== undefined) ? (durations as number[]) : undefined;
}

/** One to `max` durations separated by commas, such as 1m,10m,1h; left as a string. */
export function IsDurationList(max: number, options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isDurationList',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be one to ${max} durations separated by commas, such as 1m,10m,1h`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && (parseDurationList(value)?.length ?? max + 1) <= max,
      },
    });
}

/** Express's names for the private ranges, accepted among proxy addresses. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** A hop count or addresses/CIDRs; never `true` (a forged X-Forwarded-For would pick the IP). */
export function parseTrustProxy(value: string): number | string[] | undefined {
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.every(isProxyAddress) ? entries : undefined;
}

export function IsTrustProxy(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isTrustProxy',
      target: object.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be a hop count (e.g. 1) or comma-separated proxy addresses or CIDRs`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && parseTrustProxy(value) !== undefined,
      },
    });
}
