import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  /** the deliveryId receivers see and dedupe by */
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'endpoint_id', type: 'uuid' }) endpointId: string;
  @Column({ name: 'event_id', type: 'uuid', nullable: true }) eventId: string | null;
  @Column({ type: 'text' }) event: string;
  /** the exact JSON body sent on every attempt */
  @Column({ type: 'text' }) payload: string;
  @Column({ type: 'text' }) status: DeliveryStatus;
  @Column({ type: 'integer' }) attempts: number;
  /** auto-disable asks whether the endpoint had a success since this */
  @Column({ name: 'first_attempt_at', type: 'timestamptz', nullable: true })
  firstAttemptAt: Date | null;
  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;
  @Column({ name: 'last_response_status', type: 'smallint', nullable: true })
  lastResponseStatus: number | null;
  @Column({ name: 'last_error', type: 'text', nullable: true }) lastError: string | null;
  @Column({ name: 'response_body_excerpt', type: 'text', nullable: true })
  responseBodyExcerpt: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
