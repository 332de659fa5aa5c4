import type { AttributeType, CategoryDefinition } from '../../reference/categories.data';
import type { AttributeTypeOf } from './feed.types';

/**
 * The attribute types across all categories, by key. A key is `enum` in some categories and
 * `string` in others (brand): both keep the cell as text, so that difference is harmless; a key
 * whose types would convert a cell differently cannot be looked up by key alone, and throws.
 */
export function attributeTypesOf(categories: readonly CategoryDefinition[]): AttributeTypeOf {
  const types = new Map<string, AttributeType>();
  const visit = (nodes: readonly CategoryDefinition[]) => {
    for (const category of nodes) {
      for (const { key, type } of category.attributes ?? []) {
        const known = types.get(key);
        if (known !== undefined && conversion(known) !== conversion(type))
          throw new Error(`attribute ${key} is ${known} in one category and ${type} in another`);
        if (known === undefined) types.set(key, type);
      }
      visit(category.children ?? []);
    }
  };
  visit(categories);
  return (key) => types.get(key);
}

function conversion(type: AttributeType): string {
  return type === 'enum' ? 'string' : type;
}
