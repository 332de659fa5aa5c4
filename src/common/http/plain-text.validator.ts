import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';

/** C0/C1 controls but tab, LF, CR: U+0000 cannot be stored, the rest corrupt what readers see. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** True when no string in the value (object keys and nested values included) has a control character. */
export function isPlainText(value: unknown): boolean {
  if (typeof value === 'string') return !CONTROL_CHARACTER.test(value);
  if (Array.isArray(value)) return value.every(isPlainText);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).every(([key, inner]) => isPlainText(key) && isPlainText(inner));
  }
  return true;
}

/** Text fields refuse control characters but tab, LF and CR (400); on objects, keys and values. */
export function IsPlainText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: isPlainText,
        defaultMessage: buildMessage(
          () => '$property must not contain control characters',
          options,
        ),
      },
    },
    options,
  );
}
