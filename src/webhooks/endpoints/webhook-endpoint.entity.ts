import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { EventName } from '../../events/event-types';
import type { PreviousSecret } from './webhook-secrets';

@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
  /** the mode of the key that created it: only that mode's keys see it, only that mode's events reach it */
  @Column({ type: 'boolean' }) livemode: boolean;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  /** empty = every event */
  @Column({ type: 'text', array: true }) events: EventName[];
  /** needed in clear to sign; never logged, shown once at creation */
  @Column({ type: 'text' }) secret: string;
  /** the secrets rotations replaced, newest first, each signing until its own expiry (liveSecrets) */
  @Column({ name: 'previous_secrets', type: 'jsonb' }) previousSecrets: PreviousSecret[];
  @Column({ name: 'is_active', type: 'boolean' }) isActive: boolean;
  @Column({ name: 'consecutive_failures', type: 'integer' }) consecutiveFailures: number;
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true }) disabledAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
