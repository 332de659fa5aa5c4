import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { FieldError, ValidationError } from '../../common/errors/domain-error';

/** A posted form's text fields (the first value of a repeated one); `_csrf` is the guard's. */
export type FormFields = Record<string, string>;

/** The urlencoded body of a dashboard POST as plain strings; never validated by the API's pipe. */
export const Form = createParamDecorator((_: unknown, ctx: ExecutionContext): FormFields => {
  const body = ctx.switchToHttp().getRequest<Request>().body as unknown;
  const fields: FormFields = Object.create(null) as FormFields;
  if (!body || typeof body !== 'object') return fields;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (name === '_csrf') continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return fields;
});

/**
 * What a form shows after a refused submit: the summary at the top (each entry links to its
 * field, `#<field>`), the message beside each field, and the values to fill in again (never a
 * password: templates leave those empty).
 */
export class FormState {
  constructor(
    readonly values: Record<string, string> = {},
    readonly errors: FieldError[] = [],
  ) {}

  static empty(values: Record<string, string> = {}): FormState {
    return new FormState(values);
  }

  /** The refusal of a ValidationError as a form state; anything else is thrown again. */
  static refused(error: unknown, values: Record<string, string>): FormState {
    if (!(error instanceof ValidationError)) throw error;
    return new FormState(values, error.details ?? [{ field: 'form', message: error.message }]);
  }

  static withError(values: Record<string, string>, field: string, message: string): FormState {
    return new FormState(values, [{ field, message }]);
  }

  get hasErrors(): boolean {
    return this.errors.length > 0;
  }

  /** The message beside `field`, or undefined. */
  error(field: string): string | undefined {
    return this.errors.find((e) => e.field === field)?.message;
  }

  value(field: string): string {
    return this.values[field] ?? '';
  }
}

/** A query parameter as a form field: a string, trimmed; anything else is empty. */
export const queryText = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : '';

/** The filled-in fields only: a DTO keeps its default for a field that is absent, not empty. */
export const filledFields = (fields: FormFields): FormFields =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
