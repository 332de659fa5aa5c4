import { ValidationPipe } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import {
  validate,
  ValidationError as ClassValidatorError,
  ValidatorOptions,
} from 'class-validator';
import { FieldError, ValidationError } from '../errors/domain-error';

/** One set of rules for every DTO, whether it is a whole body or one part of it (a bulk item). */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};

/** `items[3].price`, `images[0].url`, `title`: the full path of a nested field. */
function joinPath(parent: string, property: string): string {
  if (!parent) return property;
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}

export function flattenValidationErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = joinPath(parent, error.property);
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => ({
      field,
      message: rule === 'whitelistValidation' ? `${field} is not an allowed field` : message,
    }));
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

function toValidationError(errors: ClassValidatorError[]): ValidationError {
  const details = flattenValidationErrors(errors);
  return new ValidationError(details, details[0]?.message ?? 'The request is invalid.');
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    exceptionFactory: toValidationError,
  });
}

/** As the global pipe, for part of a body (a bulk item); `plain` must have passed the pipe. */
export async function validateDto<T extends object>(
  dtoClass: ClassConstructor<T>,
  plain: unknown,
): Promise<T> {
  const dto = plainToInstance(dtoClass, asJsonObject(plain));
  const errors = await validate(dto, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw toValidationError(errors);
  return dto;
}

/** A part of a body that stands for a whole body (a bulk item) must be an object like one. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ValidationError.field('body', 'body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
