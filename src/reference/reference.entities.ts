import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AttributeDefinition } from './categories.data';

@Entity({ name: 'lan' })
export class LanRow {
  @PrimaryColumn({ type: 'char', length: 2 }) code: string;
  @Column({ type: 'text' }) slug: string;
  @Column({ type: 'text' }) name: string;
}

@Entity({ name: 'kommuner' })
export class KommunRow {
  @PrimaryColumn({ type: 'char', length: 4 }) code: string;
  @Column({ type: 'text' }) slug: string;
  @Column({ type: 'text' }) name: string;
  @Column({ name: 'lan_code', type: 'char', length: 2 }) lanCode: string;
}

@Entity({ name: 'categories' })
export class CategoryRow {
  @PrimaryColumn({ type: 'text' }) slug: string;
  @Column({ name: 'parent_slug', type: 'text', nullable: true }) parentSlug: string | null;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'int' }) position: number;
  @Column({ name: 'is_leaf', type: 'boolean' }) isLeaf: boolean;
  @Column({ type: 'jsonb' }) attributes: AttributeDefinition[];
}
