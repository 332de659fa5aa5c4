import { Transform } from 'class-transformer';
import { registerDecorator, ValidationOptions } from 'class-validator';
import ms from 'ms';

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
