import { EventLoopTurns } from './event-loop-turns';

describe('EventLoopTurns', () => {
  let now = 0;
  beforeEach(() => {
    now = 1_000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  /** Whether a callback queued for the next turn of the event loop ran before `step` resolved. */
  async function gaveATurn(step: () => Promise<void>): Promise<boolean> {
    let ran = false;
    setImmediate(() => (ran = true));
    await step();
    return ran;
  }

  it('gives the event loop a turn once the work has run for everyMs, then counts again', async () => {
    const turns = new EventLoopTurns(10);
    now += 9;
    expect(await gaveATurn(() => turns.maybeYield())).toBe(false);
    now += 1;
    expect(await gaveATurn(() => turns.maybeYield())).toBe(true);
    now += 5;
    expect(await gaveATurn(() => turns.maybeYield())).toBe(false);
    now += 5;
    expect(await gaveATurn(() => turns.maybeYield())).toBe(true);
  });
});
