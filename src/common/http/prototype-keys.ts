import { FieldError, notAllowedField } from '../errors/domain-error';

/**
 * `constructor`, `__proto__`, `toString` and the other names Object.prototype holds.
 * class-transformer skips such keys when it builds a DTO (a guard against prototype pollution),
 * so the unknown-field rule never sees them: left alone, they would be dropped without a word.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

const NONE: ReadonlySet<string> = new Set();

/** `items[3].price`, `images[0].url`, `title`: the full path of a nested field. */
export function joinPath(parent: string, property: string): string {
  if (!parent) return property;
  return /^\d+$/.test(property) ? `${parent}[${property}]` : `${parent}.${property}`;
}

/**
 * Every key of a parsed body (at any depth) named as an Object.prototype member, refused as any
 * unknown field is. `later`: top-level fields whose parts are validated one by one later (bulk
 * items), so that each part fails alone.
 */
export function prototypeKeyErrors(
  value: unknown,
  later: ReadonlySet<string> = NONE,
  parent = '',
): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof value !== 'object' || value === null) return errors;
  // Paths are built only for an error or a nested object: this runs on every body and line.
  for (const key of Object.keys(value)) {
    if (PROTOTYPE_KEYS.has(key)) {
      errors.push(notAllowedField(joinPath(parent, key)));
      continue;
    }
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !(parent === '' && later.has(key)))
      errors.push(...prototypeKeyErrors(child, NONE, joinPath(parent, key)));
  }
  return errors;
}

const validatedLater = new WeakMap<object, Set<string>>();

/** Marks a DTO property whose parts are validated later, each on its own (see prototypeKeyErrors). */
export function markValidatedLater(dtoPrototype: object, property: string): void {
  const properties = validatedLater.get(dtoPrototype) ?? new Set<string>();
  properties.add(property);
  validatedLater.set(dtoPrototype, properties);
}

/** The properties of a DTO class marked by markValidatedLater. */
export function propertiesValidatedLater(dtoClass: unknown): ReadonlySet<string> {
  return typeof dtoClass === 'function'
    ? (validatedLater.get(dtoClass.prototype as object) ?? new Set())
    : new Set();
}
