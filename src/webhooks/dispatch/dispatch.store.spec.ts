import { EVENT_LANES, laneOf } from '../../events/event-lane';
import { lastAccountServed, type ClaimedEvent } from './dispatch.store';
import { DELIVERY_QUEUES, FANOUT_QUEUES } from './webhook-queues';

const row = (accountId: string, n: number): ClaimedEvent => ({
  id: `${accountId}-${n}`,
  accountId,
});

describe('event lanes', () => {
  it('reads the outbox flag as the lane', () => {
    expect(laneOf(true)).toBe('bulk');
    expect(laneOf(false)).toBe('interactive');
  });

  it('gives each lane its own fan-out and delivery queue', () => {
    const names = EVENT_LANES.flatMap((lane) => [FANOUT_QUEUES[lane], DELIVERY_QUEUES[lane]]);
    expect(new Set(names).size).toBe(4);
    expect(FANOUT_QUEUES.interactive).toBe('webhook-fanout');
    expect(DELIVERY_QUEUES.interactive).toBe('webhook-delivery');
  });
});

describe('lastAccountServed', () => {
  it('is the last account of the first round, however many rows the others had', () => {
    // a, b and c in turn; then a and b again; c had one event.
    const rows = [row('a', 1), row('b', 1), row('c', 1), row('a', 2), row('b', 2), row('a', 3)];
    expect(lastAccountServed(rows)).toBe('c');
  });

  it('is the only account when one had everything, and null for an empty claim', () => {
    expect(lastAccountServed([row('a', 1), row('a', 2)])).toBe('a');
    expect(lastAccountServed([])).toBeNull();
  });
});
