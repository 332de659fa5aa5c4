import { UploadGate } from './upload-gate';

/** Whether the promise has settled, after the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('UploadGate', () => {
  const open = () => new AbortController().signal;

  it('grants `slots` at once and the next waiter when one is released', async () => {
    const gate = new UploadGate(2, 2);
    const first = await gate.enter('a', open());
    await gate.enter('b', open());
    const third = gate.enter('c', open());
    expect(await settled(third)).toBe(false);
    first();
    expect(await settled(third)).toBe(true);
  });

  it("passes over a key holding its share: another key's later upload goes first", async () => {
    const gate = new UploadGate(3, 1);
    const a1 = await gate.enter('a', open());
    const a2 = gate.enter('a', open());
    const b1 = gate.enter('b', open());
    expect(await settled(a2)).toBe(false);
    expect(await settled(b1)).toBe(true);
    a1();
    expect(await settled(a2)).toBe(true);
  });

  it('a waiter whose request went away leaves the queue and is never granted', async () => {
    const gate = new UploadGate(1, 1);
    const held = await gate.enter('a', open());
    const gone = new AbortController();
    const abandoned = gate.enter('b', gone.signal);
    const next = gate.enter('c', open());
    gone.abort(new Error('client closed'));
    await expect(abandoned).rejects.toThrow('client closed');
    held();
    expect(await settled(next)).toBe(true);
  });

  it('a release called twice frees one slot', async () => {
    const gate = new UploadGate(1, 1);
    const release = await gate.enter('a', open());
    const second = gate.enter('b', open());
    const third = gate.enter('c', open());
    release();
    release();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
  });
});
