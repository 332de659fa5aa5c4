/**
 * Which lane an event travels in after the outbox. Listing events written by an import's chunks
 * are `bulk`; every other event is `interactive`, and its fan-out and delivery never wait behind
 * bulk ones (separate queues, docs/architecture.md).
 */
export type EventLane = 'interactive' | 'bulk';

export const EVENT_LANES: readonly EventLane[] = ['interactive', 'bulk'];

/** `outbox_events.bulk` as a lane. */
export const laneOf = (bulk: boolean): EventLane => (bulk ? 'bulk' : 'interactive');
