import { AccessRequestsModule } from '../../src/access-requests/access-requests.module';
import { AccessRequestsService } from '../../src/access-requests/access-requests.service';
import type { AccessRequestInput } from '../../src/access-requests/access-request';
import { AccountsService } from '../../src/accounts/accounts.service';
import { ApiKeysService } from '../../src/accounts/api-keys.service';
import { KEY_ROLL_GRACES } from '../../src/accounts/key-roll-grace';
import type { AuditOrigin } from '../../src/audit/audit-entry';
import { AuditService } from '../../src/audit/audit.service';
import { DomainError } from '../../src/common/errors/domain-error';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

const ADMIN: AuditOrigin = { actor: { type: 'admin' }, ip: '192.0.2.7', userAgent: 'int-spec' };
const OWNER: AuditOrigin = { actor: { type: 'user', id: 'user-1' } };

const form = (over: Partial<AccessRequestInput> = {}): AccessRequestInput => ({
  legalName: 'Bilhallen AB',
  organisationNumber: '5560360793',
  website: 'https://bilhallen.example',
  integrationDescription: 'Our dealer system publishes used cars.',
  expectedListings: '101-1000',
  termsAccepted: true,
  ...over,
});

/** Access requests and key rolls against the real database, with their audit rows. */
describe('Access requests and key rolls', () => {
  let ctx: IntegrationContext;
  let access: AccessRequestsService;
  let accounts: AccountsService;
  let keys: ApiKeysService;
  let audit: AuditService;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [AccessRequestsModule] });
    access = ctx.get(AccessRequestsService);
    accounts = ctx.get(AccountsService);
    keys = ctx.get(ApiKeysService);
    audit = ctx.get(AuditService);
  });
  afterAll(() => ctx?.close());

  const pendingAccount = async () => (await accounts.create('Väntar AB')).id;
  const actions = async (accountId: string) =>
    (await audit.page(accountId, 50)).items.map((r) => r.action);

  describe('one open request per account', () => {
    it('under a race of two submits, one wins and the other is refused naming status', async () => {
      const accountId = await pendingAccount();
      const results = await Promise.allSettled([
        access.submit(accountId, form(), OWNER),
        access.submit(accountId, form({ legalName: 'Andra AB' }), OWNER),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(DomainError);
      expect(refused.reason.details).toEqual([
        { field: 'status', message: expect.stringMatching(/already has an open access request/) },
      ]);
      const page = await access.list('pending', null, 100);
      expect(
        (page.items as unknown[]).filter(
          (r) => (r as { accountId: string }).accountId === accountId,
        ),
      ).toHaveLength(1);
      // the refused submit wrote no audit row
      expect(await actions(accountId)).toEqual(['access.requested']);
    });

    it('is editable while pending; a rejected account may send a new one', async () => {
      const accountId = await pendingAccount();
      const first = await access.submit(accountId, form(), OWNER);
      const edited = await access.update(accountId, form({ expectedListings: '1-100' }));
      expect(edited).toMatchObject({ id: first.id, expectedListings: '1-100', status: 'pending' });

      const { request } = await access.reject(first.id, 'Website unreachable', ADMIN);
      expect(request).toMatchObject({
        status: 'rejected',
        rejectionReason: 'Website unreachable',
        decidedBy: 'admin',
      });
      await expect(access.update(accountId, form())).rejects.toThrow(
        'Open access request not found.',
      );
      expect((await accounts.get(accountId)).status).toBe('PENDING');

      const second = await access.submit(accountId, form(), OWNER);
      expect(second.id).not.toBe(first.id);
      expect(await access.current(accountId)).toMatchObject({ id: second.id, status: 'pending' });
    });

    it('only a PENDING account asks', async () => {
      const { accountId } = await ctx.newOwner();
      await expect(access.submit(accountId, form(), OWNER)).rejects.toThrow(/account is approved/);
      expect(await actions(accountId)).toEqual([]);
    });
  });

  describe('approval', () => {
    it('sets the account APPROVED and closes the request in one transaction, with its audit row', async () => {
      const accountId = await pendingAccount();
      const request = await access.submit(accountId, form(), OWNER);
      const decision = await access.approve(request.id, ADMIN);
      expect(decision.accountId).toBe(accountId);
      expect(decision.request).toMatchObject({ status: 'approved', decidedBy: 'admin' });
      expect(decision.account.status).toBe('APPROVED');
      expect((await accounts.get(accountId)).status).toBe('APPROVED');
      const [row] = (await audit.page(accountId, 1)).items;
      expect(row).toMatchObject({
        action: 'access.approved',
        actorType: 'admin',
        target: request.id,
        ip: '192.0.2.7',
        userAgent: 'int-spec',
      });
      await expect(access.approve(request.id, ADMIN)).rejects.toThrow(/already approved/);
      await expect(access.reject(request.id, 'no', ADMIN)).rejects.toThrow(/already approved/);
    });

    it('an approval whose account change fails leaves the request pending and writes no row', async () => {
      const accountId = await pendingAccount();
      const request = await access.submit(accountId, form(), OWNER);
      const setStatus = jest
        .spyOn(accounts, 'setStatus')
        .mockRejectedValueOnce(new Error('the account change failed'));
      try {
        await expect(access.approve(request.id, ADMIN)).rejects.toThrow(
          'the account change failed',
        );
      } finally {
        setStatus.mockRestore();
      }
      expect((await access.get(request.id)).status).toBe('pending');
      expect((await accounts.get(accountId)).status).toBe('PENDING');
      expect(await actions(accountId)).toEqual(['access.requested']);
    });

    it('approving the account directly closes its open request', async () => {
      const accountId = await pendingAccount();
      const request = await access.submit(accountId, form(), OWNER);
      const { account, request: closed } = await access.approveAccount(accountId, {
        actor: { type: 'cli' },
      });
      expect(account.status).toBe('APPROVED');
      expect(closed).toMatchObject({ id: request.id, status: 'approved', decidedBy: 'cli' });
      expect(await actions(accountId)).toEqual(['access.approved', 'access.requested']);
    });
  });

  describe('keys', () => {
    it('a PENDING account gets no key, and the refusal writes no row', async () => {
      const accountId = await pendingAccount();
      await expect(keys.create(accountId, { kind: 'test' }, ADMIN)).rejects.toThrow(
        /approved accounts only/,
      );
      expect(await keys.list(accountId)).toEqual([]);
      expect(await actions(accountId)).toEqual([]);
    });

    it('a roll makes a like key; the old one works until expires_at and not after, cached or not', async () => {
      const { accountId } = await ctx.newOwner();
      const old = await keys.create(
        accountId,
        { kind: 'live', name: 'ERP', scopes: ['listings:read'] },
        ADMIN,
      );
      expect(await keys.authenticate(old.key)).toMatchObject({ keyId: old.record.id });

      const rolled = await keys.roll(accountId, old.record.id, KEY_ROLL_GRACES['1h'], ADMIN);
      expect(rolled.record).toMatchObject({
        accountId,
        kind: 'live',
        name: 'ERP',
        scopes: ['listings:read'],
      });
      expect(rolled.key).not.toBe(old.key);
      expect(rolled.rolled.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      // before its expiry the old key still authenticates, beside the new one
      expect(await keys.authenticate(old.key)).toMatchObject({ keyId: old.record.id });
      expect(await keys.authenticate(rolled.key)).toMatchObject({ keyId: rolled.record.id });

      // Its expiry comes near: the cached answer must not outlive it.
      await new Promise((resolve) => setTimeout(resolve, 4_100)); // the earlier answers' TTL ends
      await ctx.dataSource.query(
        `UPDATE api_keys SET expires_at = now() + interval '1500 milliseconds' WHERE id = $1`,
        [old.record.id],
      );
      expect(await keys.authenticate(old.key)).toMatchObject({ keyId: old.record.id }); // read, cached
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect(await keys.authenticate(old.key)).toBeNull(); // a cache hit, refused by its expiry
      expect(await keys.authenticate(rolled.key)).toMatchObject({ keyId: rolled.record.id });

      const rows = (await audit.page(accountId, 10)).items;
      expect(rows.map((r) => r.action)).toEqual(['key.rolled', 'key.created']);
      expect(rows[0]).toMatchObject({
        target: old.record.id,
        details: expect.objectContaining({ newKeyId: rolled.record.id, graceSeconds: 3600 }),
      });
      expect(JSON.stringify(rows)).not.toContain(old.key);
      expect(JSON.stringify(rows)).not.toContain(rolled.key);
    }, 20_000);

    it('a roll with no grace ends the old key at once; an expired, rolled or revoked key cannot be rolled', async () => {
      const { accountId } = await ctx.newOwner();
      const old = await keys.create(accountId, { kind: 'test' }, ADMIN);
      await keys.authenticate(old.key);
      const rolled = await keys.roll(accountId, old.record.id, 0, ADMIN);
      expect(await keys.authenticate(old.key)).toBeNull();
      await expect(keys.roll(accountId, old.record.id, 0, ADMIN)).rejects.toThrow(/expired/);

      const next = await keys.roll(accountId, rolled.record.id, KEY_ROLL_GRACES['7d'], ADMIN);
      await expect(keys.roll(accountId, rolled.record.id, 0, ADMIN)).rejects.toThrow(
        /already rolled/,
      );
      await keys.revoke(next.record.id, ADMIN, accountId);
      await expect(keys.roll(accountId, next.record.id, 0, ADMIN)).rejects.toThrow(/revoked/);
      await expect(keys.roll(accountId, next.record.id, 5_000, ADMIN)).rejects.toThrow(
        /grace must be one of/,
      );
      const other = await ctx.newOwner();
      await expect(keys.roll(other.accountId, rolled.record.id, 0, ADMIN)).rejects.toThrow(
        'API key not found.',
      );
      expect(await actions(accountId)).toEqual([
        'key.revoked',
        'key.rolled',
        'key.rolled',
        'key.created',
      ]);
    });
  });
});
