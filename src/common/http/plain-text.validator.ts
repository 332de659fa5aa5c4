import { buildMessage, ValidateBy, ValidationArguments, ValidationOptions } from 'class-validator';
import { NOT_UTF8_MARK } from './invalid-utf8';

/** C0/C1 controls but tab, LF, CR: U+0000 cannot be stored, the rest corrupt what readers see. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** Where the body's bytes were not UTF-8 (the mark alone, not the low half of a pair). */
const LONE_NOT_UTF8_MARK = new RegExp(`(?<![\\uD800-\\uDBFF])${NOT_UTF8_MARK}`);

/** Bidi embeddings, overrides and isolates make text read differently than it is; U+FEFF hides. */
const INVISIBLE_FORMATTING = /[\u202A-\u202E\u2066-\u2069\uFEFF]/;

/**
 * Whitespace at the ends of a string goes, but not what JavaScript counts as whitespace and the
 * text rules refuse (vertical tab, form feed, U+FEFF): those are refused wherever they are.
 */
export function trimText({ value }: { value: unknown }): unknown {
  return typeof value === 'string'
    ? value.replace(/^[^\S\v\f\uFEFF]+|[^\S\v\f\uFEFF]+$/g, '')
    : value;
}

/** Ends a message after the offending text's name; undefined when the string is plain text. */
export function textProblem(text: string): string | undefined {
  // A lone surrogate is not Unicode: PostgreSQL refuses it in jsonb and replaces it in text.
  if (!text.isWellFormed()) {
    return LONE_NOT_UTF8_MARK.test(text)
      ? 'is not valid UTF-8'
      : 'must be valid Unicode (it contains a lone surrogate)';
  }
  if (CONTROL_CHARACTER.test(text)) return 'must not contain control characters';
  if (INVISIBLE_FORMATTING.test(text)) {
    return 'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069) or U+FEFF';
  }
  return undefined;
}

/**
 * The first string in the value (object keys and nested values included) that is not plain text,
 * as `<where> <problem>`; `where` starts at `name` (`attributes.model`, `a key of attributes`).
 */
export function plainTextProblem(value: unknown, name: string): string | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && `${name} ${problem}`;
  }
  if (Array.isArray(value)) {
    for (const [index, inner] of value.entries()) {
      const problem = plainTextProblem(inner, `${name}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      if (keyProblem) return `a key of ${name} ${keyProblem}`;
      const problem = plainTextProblem(inner, `${name}.${key.length > 64 ? '…' : key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** True when every string in the value (object keys and nested values included) is plain text. */
export function isPlainText(value: unknown): boolean {
  return plainTextProblem(value, '') === undefined;
}

/**
 * Text fields take well-formed Unicode without control characters (but tab, LF and CR), bidi
 * controls or U+FEFF (400); on objects, keys and values, and the message names the one at fault.
 */
export function IsPlainText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: isPlainText,
        defaultMessage: buildMessage(
          (_prefix, args?: ValidationArguments) =>
            plainTextProblem(args?.value, '$property') ?? '$property must be plain text',
          options,
        ),
      },
    },
    options,
  );
}
