export const SESSION_IDLE_MS = 8 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
/** last_seen_at is written at most this often per session */
export const SESSION_TOUCH_EVERY_MS = 60_000;

export interface SessionTimes {
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}

/** A session ends when revoked, 8 h after its last request, or 7 days after sign-in. */
export function sessionEnded(session: SessionTimes, now: Date): boolean {
  if (session.revokedAt) return true;
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_MS) return true;
  return now.getTime() - session.createdAt.getTime() >= SESSION_ABSOLUTE_MS;
}

/** The password was entered within `withinMs` (re-confirmation before sensitive actions). */
export function passwordRecentlyConfirmed(
  confirmedAt: Date | null,
  now: Date,
  withinMs: number,
): boolean {
  return confirmedAt !== null && now.getTime() - confirmedAt.getTime() < withinMs;
}
