import { ValidationError } from '../../common/errors/domain-error';

/** The dashboard's clock: a `datetime-local` input is read as Stockholm time. */
export const DASHBOARD_TIME_ZONE = 'Europe/Stockholm';

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const parts = new Intl.DateTimeFormat('en-GB', {
  timeZone: DASHBOARD_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** How far Stockholm's wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: number): number {
  const p = Object.fromEntries(parts.formatToParts(instant).map((x) => [x.type, x.value]));
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * A `datetime-local` value (`2026-03-01T14:30`) in Stockholm time as an instant. The field named
 * `field` is refused with a message when the value is not such a date and time.
 */
export function fromLocalDateTime(value: string | undefined, field: string): Date {
  const match = LOCAL.exec(value ?? '');
  const [, y, mo, d, h, mi, s] = match ?? [];
  const wall = match ? Date.UTC(+y, +mo - 1, +d, +h, +mi, +(s ?? 0)) : NaN;
  if (!match || new Date(wall).getUTCDate() !== +d || +h > 23 || +mi > 59) {
    throw ValidationError.field(field, 'Enter a date and time, such as 2026-03-01 14:30.');
  }
  // The offset at the wall time read as UTC, then again at the instant found (DST changes).
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}

/** An instant as a `datetime-local` value in Stockholm time (minutes). */
export function toLocalDateTime(instant: Date): string {
  const p = Object.fromEntries(parts.formatToParts(instant).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}
