/**
 * A Swedish organisationsnummer: 10 digits, the last a Luhn check digit over the first nine.
 * Accepted as `5560000000` or `556000-0000` (spaces around are ignored) and kept as 10 digits.
 */
const INPUT = /^(\d{6})-?(\d{4})$/;

/** The 10 digits of a well-formed number with a valid check digit; null otherwise. */
export function normaliseOrganisationNumber(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const match = INPUT.exec(input.trim());
  if (!match) return null;
  const digits = match[1] + match[2];
  return luhnValid(digits) ? digits : null;
}

/** The Luhn check: from the right, every second digit doubled (its digits summed), total % 10 = 0. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
