import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import {
  validate,
  ValidationError as ClassValidatorError,
  ValidatorOptions,
} from 'class-validator';
import { FieldError, notAllowedField, ValidationError } from '../errors/domain-error';
import { joinPath, propertiesValidatedLater, prototypeKeyErrors } from './prototype-keys';

/** One set of rules for every DTO, whether it is a whole body or one part of it (a bulk item). */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
};

export function flattenValidationErrors(errors: ClassValidatorError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = joinPath(parent, error.property);
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) =>
      rule === 'whitelistValidation' ? notAllowedField(field) : { field, message },
    );
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** What validating a body (or a part of one) found; `dto` is whole only when `errors` is empty. */
export interface CheckedDto<T extends object = object> {
  dto: T;
  /** every field error, the first per field (`stopAtFirstError`), in the DTO's field order */
  errors: FieldError[];
  /** the top-level fields with an error: their values are not to be used by later checks */
  invalid: ReadonlySet<string>;
}

/**
 * A body or item refused for its shape. It keeps what was checked, so a later layer can run its
 * own checks (reference data, the merged PATCH) on the well-formed fields and answer every
 * error at once (`ValidationError.merged`). The DTO is not enumerable: it is never logged.
 */
export class ShapeValidationError<T extends object = object> extends ValidationError {
  declare readonly checked: CheckedDto<T>;

  constructor(checked: CheckedDto<T>) {
    super(checked.errors, checked.errors[0]?.message ?? 'The request is invalid.');
    Object.defineProperty(this, 'checked', { value: checked, enumerable: false });
  }

  /** What `error` checked, when it is the shape error of a `dtoClass` body. */
  static checkedOf<T extends object>(
    error: unknown,
    dtoClass: ClassConstructor<T>,
  ): CheckedDto<T> | undefined {
    if (!(error instanceof ShapeValidationError)) return undefined;
    const { checked } = error as ShapeValidationError;
    return checked.dto instanceof dtoClass ? (checked as CheckedDto<T>) : undefined;
  }
}

function checkedOf<T extends object>(
  dto: T,
  errors: ClassValidatorError[],
  keyErrors: FieldError[] = [],
): CheckedDto<T> {
  return {
    dto,
    errors: [...keyErrors, ...flattenValidationErrors(errors)],
    invalid: new Set([
      ...keyErrors.map((error) => topLevelField(error.field)),
      ...errors.map((error) => error.property),
    ]),
  };
}

/** `attributes` of `attributes.make`, `images` of `images[0].url`. */
function topLevelField(path: string): string {
  return /^[^.[]*/.exec(path)![0];
}

/**
 * The pipe's refusal. Its top-level errors carry the DTO they checked as their `target` (the
 * pipe asks for it), which the refusal keeps for later checks.
 */
export function toValidationError(errors: ClassValidatorError[]): ValidationError {
  const target = errors[0]?.target;
  if (target !== undefined) return new ShapeValidationError(checkedOf(target, errors));
  const details = flattenValidationErrors(errors);
  return new ValidationError(details, details[0]?.message ?? 'The request is invalid.');
}

/** No character below U+0300 composes with its neighbours, so such text is NFC already. */
const MAY_CHANGE_UNDER_NFC = /[\u0300-\uffff]/;

/**
 * Every string and object key of a parsed body, query or param in NFC, so text is stored and
 * compared in one form. Ill-formed strings pass unchanged: the validators refuse them by field.
 * Only plain objects and arrays are rebuilt (files and buffers are left alone); a key that
 * becomes equal to another wins over it as a later duplicate key in JSON does.
 */
export function normalizeText(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.isWellFormed() && MAY_CHANGE_UNDER_NFC.test(value)
      ? value.normalize('NFC')
      : value;
  }
  if (Array.isArray(value)) return value.map(normalizeText);
  if (typeof value !== 'object' || value === null) return value;
  // Plain objects only (of any realm): their prototype is null or has none itself.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return value;
  const entries = Object.entries(value).map(([k, v]) => [normalizeText(k), normalizeText(v)]);
  // fromEntries defines own properties: a "__proto__" key stays data, as JSON.parse left it.
  const normalized: object = Object.fromEntries(entries);
  if (proto === null) Object.setPrototypeOf(normalized, null);
  return normalized;
}

/** The global pipe: what the caller sent (not custom parameters) in NFC, then the DTO's rules. */
class TextValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const sent = metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param';
    if (sent && metadata.metatype && this.toValidate(metadata)) {
      // A body DTO describes an object: an array is refused as such, not read as its indexes.
      if (metadata.type === 'body' && value !== undefined) asJsonObject(value);
      const later = propertiesValidatedLater(metadata.metatype);
      const keyErrors = prototypeKeyErrors(value, later);
      if (keyErrors.length > 0) throw new ValidationError(keyErrors, keyErrors[0].message);
    }
    return super.transform(sent ? normalizeText(value) : value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new TextValidationPipe({
    ...VALIDATOR_OPTIONS,
    // The refusal keeps the checked DTO (never its values in the answer): see toValidationError.
    validationError: { target: true, value: false },
    transform: true,
    exceptionFactory: toValidationError,
  });
}

/** As the global pipe, for part of a body (a bulk item); `plain` must have passed the pipe. */
export async function validateDto<T extends object>(
  dtoClass: ClassConstructor<T>,
  plain: unknown,
): Promise<T> {
  const checked = await checkDto(dtoClass, plain);
  if (checked.errors.length > 0) throw new ShapeValidationError(checked);
  return checked.dto;
}

/** As `validateDto`, answering what it found instead of throwing it (a non-object still throws). */
export async function checkDto<T extends object>(
  dtoClass: ClassConstructor<T>,
  plain: unknown,
): Promise<CheckedDto<T>> {
  const body = asJsonObject(plain);
  const dto = plainToInstance(dtoClass, normalizeText(body));
  return checkedOf(dto, await validate(dto, VALIDATOR_OPTIONS), prototypeKeyErrors(body));
}

/** A part of a body that stands for a whole body (a bulk item) must be an object like one. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ValidationError.field('body', 'body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
