import { randomUUID } from 'node:crypto';
import type { EventName, EventPayloads } from '../../src/events/event-types';
import { OutboxService } from '../../src/events/outbox.service';
import type { TestApp } from './test-app';

/** A plausible `data` for each event, about a listing with a fresh id. */
export function sampleEventData<E extends EventName>(event: E, livemode = true): EventPayloads[E] {
  const now = new Date().toISOString();
  const ref = { id: randomUUID(), externalId: `ext-${randomUUID().slice(0, 8)}`, livemode };
  const counts = {
    lines: 3,
    processed: 3,
    created: 1,
    updated: 1,
    unchanged: 1,
    renewed: 0,
    restored: 0,
    skipped: 0,
    removed: 0,
    failed: 0,
    plannedRemovals: null,
  };
  const importRef = { id: ref.id, livemode, mode: 'upsert', dryRun: false, counts };
  const data: { [K in EventName]: EventPayloads[K] } = {
    'listing.created': { ...ref, status: livemode ? 'ACTIVE' : 'DRAFT', updatedAt: now },
    'listing.updated': { ...ref, status: 'ACTIVE', updatedAt: now, changedFields: ['price'] },
    'listing.sold': { ...ref, soldAt: now },
    'listing.expired': { ...ref, expiredAt: now },
    'listing.removed': { ...ref, removedAt: now, reason: 'Duplicate' },
    'message.received': { ...ref, messageId: randomUUID(), receivedAt: now, preview: 'Hej!' },
    'listing.favorited': { ...ref, favoritedAt: now, userRef: null },
    'import.held': { ...importRef, status: 'held' },
    'import.finished': { ...importRef, status: 'succeeded' },
  };
  return data[event];
}

/**
 * Commits an event the way the listings code does: through the real OutboxService inside a
 * transaction. Returns its data, whose `id` identifies it in what the receiver gets.
 */
export async function emitEvent<E extends EventName>(
  t: TestApp,
  accountId: string,
  event: E,
  data: EventPayloads[E] = sampleEventData(event),
): Promise<EventPayloads[E]> {
  const outbox = t.app.get(OutboxService);
  await t.dataSource.transaction((em) => outbox.append(em, { accountId, event, data }));
  return data;
}
