import type { EntityManager } from 'typeorm';
import { CATEGORY_TREE, CategoryDefinition } from './categories.data';
import { readLocations } from './locations.data';

interface CategoryInsert {
  slug: string;
  parent: string | null;
  name: string;
  position: number;
  isLeaf: boolean;
  attributes: string;
}

function flattenCategories(
  nodes: readonly CategoryDefinition[],
  parent: string | null,
): CategoryInsert[] {
  return nodes.flatMap((node, position) => [
    {
      slug: node.slug,
      parent,
      name: node.name,
      position,
      isLeaf: !node.children?.length,
      attributes: JSON.stringify(node.attributes ?? []),
    },
    ...flattenCategories(node.children ?? [], node.slug),
  ]);
}

/** Idempotent upsert of the shipped reference data; never deletes (listings may point at rows). */
export async function seedReferenceData(em: EntityManager): Promise<void> {
  const locations = readLocations();
  const lans = locations.map(({ code, slug, name }) => ({ code, slug, name }));
  const kommuner = locations.flatMap((lan) =>
    lan.kommuner.map((k) => ({ ...k, lanCode: lan.code })),
  );
  await em.query(
    `INSERT INTO lan (code, slug, name)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(code char(2), slug text, name text)
     ON CONFLICT (code) DO UPDATE SET slug = EXCLUDED.slug, name = EXCLUDED.name`,
    [JSON.stringify(lans)],
  );
  await em.query(
    `INSERT INTO kommuner (code, slug, name, lan_code)
     SELECT code, slug, name, "lanCode" FROM jsonb_to_recordset($1::jsonb)
       AS x(code char(4), slug text, name text, "lanCode" char(2))
     ON CONFLICT (code) DO UPDATE SET slug = EXCLUDED.slug, name = EXCLUDED.name, lan_code = EXCLUDED.lan_code`,
    [JSON.stringify(kommuner)],
  );
  // Parents come before children in the flattened list, so one statement satisfies the self-reference.
  await em.query(
    `INSERT INTO categories (slug, parent_slug, name, position, is_leaf, attributes)
     SELECT slug, parent, name, position, "isLeaf", attributes::jsonb FROM jsonb_to_recordset($1::jsonb)
       AS x(slug text, parent text, name text, position int, "isLeaf" boolean, attributes text)
     ON CONFLICT (slug) DO UPDATE SET parent_slug = EXCLUDED.parent_slug, name = EXCLUDED.name,
       position = EXCLUDED.position, is_leaf = EXCLUDED.is_leaf, attributes = EXCLUDED.attributes`,
    [JSON.stringify(flattenCategories(CATEGORY_TREE, null))],
  );
}
