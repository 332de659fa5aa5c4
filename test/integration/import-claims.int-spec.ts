import type { OwnerScope } from '../../src/auth/scope';
import { ImportsModule } from '../../src/imports/imports.module';
import { ImportsStore } from '../../src/imports/imports.store';
import { createIntegrationContext, IntegrationContext } from '../support/integration';
import { queueImport } from '../support/queued-import';

const LEASE_MS = 60_000;

/**
 * Which import a runner claims next, against the real database: one import of an account and
 * mode at a time however many runners claim at once, other accounts before a second import of
 * an account already running one, live before test, then the oldest.
 */
describe('ImportsStore.claimNext: fairness across accounts and modes', () => {
  let ctx: IntegrationContext;
  let store: ImportsStore;

  beforeAll(async () => {
    // The store alone: no worker claims behind the tests' backs.
    ctx = await createIntegrationContext({ imports: [ImportsModule] });
    store = ctx.get(ImportsStore);
  });
  // Each test starts with nothing to claim: what one leaves unfinished must not be claimed next.
  afterEach(() =>
    ctx.dataSource.query(
      `UPDATE imports SET status = 'cancelled', finished_at = now(), claim_token = NULL,
         lease_until = NULL
       WHERE status IN ('queued', 'running', 'held')`,
    ),
  );
  afterAll(() => ctx?.close());

  const queued = (owner: OwnerScope) => queueImport(ctx, owner, [{ externalId: 'x' }]);
  const testMode = (owner: OwnerScope): OwnerScope => ({ ...owner, livemode: false });
  const claimedId = async () => (await store.claimNext(LEASE_MS))?.row.id;

  it('never claims two imports of one account and mode, however many runners claim at once', async () => {
    const owner = await ctx.newOwner();
    const first = await queued(owner);
    await queued(owner);
    await queued(owner);

    const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimNext(LEASE_MS)));

    expect(claims.filter(Boolean).map((c) => c!.row.id)).toEqual([first]);
    const running = await ctx.dataSource.query(
      `SELECT id FROM imports WHERE account_id = $1 AND status = 'running'`,
      [owner.accountId],
    );
    expect(running).toEqual([{ id: first }]);
    // The same account's other mode is a queue of its own.
    const test = await queued(testMode(owner));
    expect(await claimedId()).toBe(test);
    expect(await claimedId()).toBeUndefined();
  });

  it("claims another account's waiting import before a second one of an account already running", async () => {
    const a = await ctx.newOwner();
    const b = await ctx.newOwner();
    const aLive = await queued(a);
    const aTest = await queued(testMode(a));
    const bTest = await queued(testMode(b));
    expect(await claimedId()).toBe(aLive);
    // A's test import is older and B's is test too: B's goes first, A already runs one.
    expect(await claimedId()).toBe(bTest);
    expect(await claimedId()).toBe(aTest);
  });

  it('claims live imports before test ones, then the oldest first', async () => {
    const [a, b, c] = [await ctx.newOwner(), await ctx.newOwner(), await ctx.newOwner()];
    const aTest = await queued(testMode(a));
    const bLive = await queued(b);
    const cLive = await queued(c);
    expect(await claimedId()).toBe(bLive);
    expect(await claimedId()).toBe(cLive);
    expect(await claimedId()).toBe(aTest);
  });

  it('takes back a running import whose lease ran out, still one at a time for its account and mode', async () => {
    const owner = await ctx.newOwner();
    const first = await queued(owner);
    const second = await queued(owner);
    const claimed = await store.claimNext(LEASE_MS);
    expect(claimed?.row.id).toBe(first);
    expect(await claimedId()).toBeUndefined();
    // Its runner died: the lease runs out.
    await ctx.dataSource.query(
      `UPDATE imports SET lease_until = now() - interval '1 second' WHERE id = $1`,
      [first],
    );
    const resumed = await store.claimNext(LEASE_MS);
    expect(resumed?.row).toMatchObject({ id: first, attempts: 2 });
    expect(resumed?.claim.token).not.toBe(claimed?.claim.token);
    expect(await claimedId()).toBeUndefined();
    expect((await store.findById(second))?.status).toBe('queued');
  });
});
