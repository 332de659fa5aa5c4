import type { FieldError } from '../errors/domain-error';

/**
 * `constructor`, `__proto__`, `toString` and the other names Object.prototype holds.
 * class-transformer skips such keys when it builds a DTO (a guard against prototype pollution),
 * so the unknown-field rule never sees them: left alone, they would be dropped without a word.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

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
  later: ReadonlySet<string> = new Set(),
  parent = '',
): FieldError[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const field = joinPath(parent, key);
    if (PROTOTYPE_KEYS.has(key)) return [{ field, message: `${field} is not an allowed field` }];
    return parent === '' && later.has(key) ? [] : prototypeKeyErrors(child, new Set(), field);
  });
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
