import { Injectable, OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AttributeDefinition } from './categories.data';
import { CategoryRow, KommunRow, LanRow } from './reference.entities';

export interface CategoryNode {
  slug: string;
  name: string;
  isLeaf: boolean;
  attributes: AttributeDefinition[];
  children: CategoryNode[];
}

export interface LocationNode {
  code: string;
  slug: string;
  name: string;
  kommuner: { code: string; slug: string; name: string }[];
}

/** Changes only with a deploy: read once, every lookup served from memory. */
@Injectable()
export class ReferenceService implements OnModuleInit {
  private categoryTree: CategoryNode[] = [];
  private categoriesBySlug = new Map<string, CategoryNode>();
  private locationTree: LocationNode[] = [];
  private lanOfKommun = new Map<string, string>();
  private lanSlugs = new Set<string>();
  private version = '';

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const [categories, lans, kommuner] = await Promise.all([
      this.dataSource.getRepository(CategoryRow).find({ order: { position: 'ASC' } }),
      this.dataSource.getRepository(LanRow).find({ order: { code: 'ASC' } }),
      this.dataSource.getRepository(KommunRow).find({ order: { code: 'ASC' } }),
    ]);
    this.buildCategories(categories);
    this.buildLocations(lans, kommuner);
    this.version = createHash('sha256')
      .update(JSON.stringify([this.categoryTree, this.locationTree]))
      .digest('base64');
  }

  /** A digest of all reference data: it changes whenever any category or location does. */
  digest(): string {
    return this.version;
  }

  categories(): CategoryNode[] {
    return this.categoryTree;
  }

  locations(): LocationNode[] {
    return this.locationTree;
  }

  category(slug: string): CategoryNode | undefined {
    return this.categoriesBySlug.get(slug);
  }

  isLan(slug: string): boolean {
    return this.lanSlugs.has(slug);
  }

  lanOf(kommunSlug: string): string | undefined {
    return this.lanOfKommun.get(kommunSlug);
  }

  private buildCategories(rows: CategoryRow[]): void {
    const nodes = new Map<string, CategoryNode>(
      rows.map((r) => [
        r.slug,
        { slug: r.slug, name: r.name, isLeaf: r.isLeaf, attributes: r.attributes, children: [] },
      ]),
    );
    this.categoryTree = [];
    for (const row of rows) {
      const node = nodes.get(row.slug)!;
      if (row.parentSlug) nodes.get(row.parentSlug)?.children.push(node);
      else this.categoryTree.push(node);
    }
    this.categoriesBySlug = nodes;
  }

  private buildLocations(lans: LanRow[], kommuner: KommunRow[]): void {
    const byCode = new Map<string, LocationNode>(
      lans.map((l) => [l.code, { code: l.code, slug: l.slug, name: l.name, kommuner: [] }]),
    );
    this.lanOfKommun = new Map();
    for (const k of kommuner) {
      const lan = byCode.get(k.lanCode)!;
      lan.kommuner.push({ code: k.code, slug: k.slug, name: k.name });
      this.lanOfKommun.set(k.slug, lan.slug);
    }
    this.locationTree = [...byCode.values()];
    this.lanSlugs = new Set(lans.map((l) => l.slug));
  }
}
