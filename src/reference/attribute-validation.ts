import { length } from 'class-validator';
import type { FieldError } from '../common/errors/domain-error';
import { textProblem } from '../common/http/plain-text.validator';
import type { AttributeDefinition } from './categories.data';

/** Checks a listing's `attributes` against its category's definitions; errors name `attributes.<key>`. */
export function validateAttributes(
  definitions: readonly AttributeDefinition[],
  attributes: Record<string, unknown>,
): FieldError[] {
  const errors: FieldError[] = [];
  const known = new Map(definitions.map((d) => [d.key, d]));
  for (const key of Object.keys(attributes)) {
    // A key that is not plain text is named by what is wrong with it, never echoed.
    const keyProblem = textProblem(key);
    if (keyProblem)
      errors.push({ field: 'attributes', message: `a key of attributes ${keyProblem}` });
    else if (!known.has(key))
      errors.push({
        field: `attributes.${key}`,
        message: `${key} is not an attribute of this category`,
      });
  }
  for (const def of definitions) {
    const field = `attributes.${def.key}`;
    const value = attributes[def.key];
    if (value === undefined || value === null) {
      if (def.required) errors.push({ field, message: `${def.key} is required in this category` });
      continue;
    }
    const problem = checkValue(def, value);
    if (problem) errors.push({ field, message: `${def.key} ${problem}` });
  }
  return errors;
}

function checkValue(def: AttributeDefinition, value: unknown): string | undefined {
  switch (def.type) {
    case 'string':
      if (typeof value !== 'string' || value.trim().length === 0)
        return 'must be a non-empty string';
      // Characters as every other text field counts them (class-validator's length), not UTF-16 units.
      if (def.maxLength !== undefined && !length(value, 0, def.maxLength))
        return `must be at most ${def.maxLength} characters`;
      return textProblem(value);
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
      if (def.min !== undefined && value < def.min) return `must be at least ${def.min}`;
      if (def.max !== undefined && value > def.max) return `must be at most ${def.max}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'enum':
      return typeof value === 'string' && def.values?.includes(value)
        ? undefined
        : `must be one of ${(def.values ?? []).join(', ')}`;
  }
}
