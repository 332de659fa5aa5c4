import { WORKER_LANES, type WorkerLane } from '../platform/config/app.config';

/**
 * Which lane an event travels in after the outbox. Listing events written by an import's chunks
 * are `bulk`; every other event is `interactive`, and its fan-out and delivery never wait behind
 * bulk ones (separate queues, and workers of their own: docs/architecture.md).
 */
export type EventLane = WorkerLane;

export const EVENT_LANES: readonly EventLane[] = WORKER_LANES;

/** `outbox_events.bulk` as a lane. */
export const laneOf = (bulk: boolean): EventLane => (bulk ? 'bulk' : 'interactive');
