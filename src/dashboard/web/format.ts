/** Dates, numbers and prices as Swedish readers expect them (sv-SE, SEK, Stockholm time). */
const TIME_ZONE = 'Europe/Stockholm';

const dateTime = new Intl.DateTimeFormat('sv-SE', {
  dateStyle: 'short',
  timeStyle: 'short',
  timeZone: TIME_ZONE,
});
const date = new Intl.DateTimeFormat('sv-SE', { dateStyle: 'short', timeZone: TIME_ZONE });
const number = new Intl.NumberFormat('sv-SE');
const sek = new Intl.NumberFormat('sv-SE', { style: 'currency', currency: 'SEK' });
const percent = new Intl.NumberFormat('sv-SE', { style: 'percent', maximumFractionDigits: 1 });

export const formats = {
  /** 2026-11-29 14:05 */
  dateTime: (value: Date | string | null | undefined): string =>
    value == null ? '' : dateTime.format(new Date(value)),
  /** 2026-11-29 */
  date: (value: Date | string | null | undefined): string =>
    value == null ? '' : date.format(new Date(value)),
  /** 12 345 (a narrow no-break space groups thousands) */
  number: (value: number | null | undefined): string => (value == null ? '' : number.format(value)),
  /** 1 234,50 kr */
  sek: (value: number | null | undefined): string => (value == null ? '' : sek.format(value)),
  /** 12,5 % */
  percent: (ratio: number | null | undefined): string =>
    ratio == null ? '' : percent.format(ratio),
};

export type Formats = typeof formats;
