import { ValidationError } from '../common/errors/domain-error';

/**
 * How long a rolled key keeps working beside its successor: now, 1 hour, 24 hours or 7 days
 * (the dashboard's choices). Each door names them the same way.
 */
export const KEY_ROLL_GRACES = {
  '0': 0,
  '1h': 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 24 * 3_600_000,
} as const;
export type KeyRollGrace = keyof typeof KEY_ROLL_GRACES;
export const KEY_ROLL_GRACE_NAMES = Object.keys(KEY_ROLL_GRACES) as KeyRollGrace[];

const GRACE_MS: ReadonlySet<number> = new Set(Object.values(KEY_ROLL_GRACES));

/** The grace in milliseconds for one of the names ('now' is '0'); a ValidationError otherwise. */
export function keyRollGraceMs(name: string, field = 'grace'): number {
  const key = name === 'now' ? '0' : name;
  if (!Object.prototype.hasOwnProperty.call(KEY_ROLL_GRACES, key)) {
    throw ValidationError.field(
      field,
      `${field} must be one of ${KEY_ROLL_GRACE_NAMES.join(', ')}.`,
    );
  }
  return KEY_ROLL_GRACES[key as KeyRollGrace];
}

/** Refuses a grace that is not one of the choices, in milliseconds. */
export function assertKeyRollGraceMs(graceMs: number, field = 'grace'): void {
  if (!GRACE_MS.has(graceMs)) {
    throw ValidationError.field(
      field,
      `${field} must be one of ${KEY_ROLL_GRACE_NAMES.join(', ')}.`,
    );
  }
}
