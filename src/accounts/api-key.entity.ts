import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { ApiKeyKind, Scope } from '../auth/principal';
import { Account } from './account.entity';

@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
  @ManyToOne(() => Account, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: Account;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) kind: ApiKeyKind;
  /** first 12 characters, enough to recognise a key in a dashboard without revealing it */
  @Column({ type: 'text' }) prefix: string;
  /** hex SHA-256 of the whole key; the key itself is never stored */
  @Column({ name: 'key_hash', type: 'char', length: 64 }) keyHash: string;
  @Column({ type: 'text', array: true }) scopes: Scope[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt: Date | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  /** set when the key is rolled: authentication refuses it from then on */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true }) expiresAt: Date | null;
  /** the dashboard user who made it; null for the CLI and the admin API ("staff") */
  @Column({ name: 'created_by_user_id', type: 'uuid', nullable: true }) createdByUserId:
    string | null;
}
