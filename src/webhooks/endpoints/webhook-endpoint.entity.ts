import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { EventName } from '../../events/event-types';

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
  /** the secret a rotation replaced: it still signs (after the new one) until it expires */
  @Column({ name: 'previous_secret', type: 'text', nullable: true }) previousSecret: string | null;
  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;
  @Column({ name: 'is_active', type: 'boolean' }) isActive: boolean;
  @Column({ name: 'consecutive_failures', type: 'integer' }) consecutiveFailures: number;
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true }) disabledAt: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
