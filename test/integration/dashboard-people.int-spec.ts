import { DataSource } from 'typeorm';
import { DashboardModule } from '../../src/dashboard/dashboard.module';
import { DashboardSessionsStore } from '../../src/dashboard/dashboard-sessions.store';
import { MembershipsStore } from '../../src/dashboard/memberships.store';
import { hashToken, newToken } from '../../src/dashboard/security/tokens';
import { SignInFailuresStore } from '../../src/dashboard/sign-in-failures.store';
import { UserTokensStore } from '../../src/dashboard/user-tokens.store';
import { UsersStore } from '../../src/dashboard/users.store';
import { MailService } from '../../src/mail/mail.service';
import { createIntegrationContext, IntegrationContext } from '../support/integration';

let counter = 0;
const email = () => `int.${Date.now().toString(36)}.${++counter}@example.se`;

describe('Dashboard stores against PostgreSQL', () => {
  let ctx: IntegrationContext;
  let db: DataSource;
  let users: UsersStore;

  beforeAll(async () => {
    ctx = await createIntegrationContext({ imports: [DashboardModule] });
    db = ctx.dataSource;
    users = ctx.get(UsersStore);
  });
  afterAll(() => ctx.close());

  const aUser = async () => (await db.transaction((em) => users.insert(em, email(), 'hash')))!;

  describe('users', () => {
    it('one user per email: a second insert answers null', async () => {
      const address = email();
      expect(await db.transaction((em) => users.insert(em, address, 'h'))).not.toBeNull();
      expect(await db.transaction((em) => users.insert(em, address, 'h'))).toBeNull();
    });

    it('emails are stored lower-cased (the database refuses anything else)', async () => {
      await expect(
        db.transaction((em) => users.insert(em, 'Upper@Example.se', 'h')),
      ).rejects.toThrow(/users_email_check/);
    });

    it('the 10th failure in a row locks for the given time, once, and starts the count again', async () => {
      const user = await aUser();
      const results = [];
      for (let i = 0; i < 10; i++)
        results.push(
          await db.transaction((em) => users.countFailure(em, user.id, 10, 15 * 60_000)),
        );
      expect(results.map((r) => r.lockedNow)).toEqual([...Array(9).fill(false), true]);
      const locked = (await users.byId(user.id))!;
      expect(locked.failedSignIns).toBe(0);
      expect(locked.lockedUntil!.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
      // A new password ends the lock.
      await db.transaction((em) => users.setPassword(em, user.id, 'new-hash'));
      expect((await users.byId(user.id))!).toMatchObject({
        lockedUntil: null,
        passwordHash: 'new-hash',
      });
    });

    it('concurrent failures each count: 10 at once lock exactly once', async () => {
      const user = await aUser();
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          db.transaction((em) => users.countFailure(em, user.id, 10, 60_000)),
        ),
      );
      expect(results.filter((r) => r.lockedNow)).toHaveLength(1);
    });
  });

  describe('sessions', () => {
    const sessions = () => ctx.get(DashboardSessionsStore);

    it('are found by the hash of their token only; a rotation retires the old token', async () => {
      const user = await aUser();
      const token = newToken();
      const session = await sessions().insert({
        tokenHash: hashToken(token),
        userId: user.id,
        accountId: null,
        csrfToken: newToken(),
        passwordConfirmed: true,
        ip: '203.0.113.1',
        userAgent: 'jest',
      });
      expect((await sessions().byTokenHash(hashToken(token)))!.session.id).toBe(session.id);
      const next = newToken();
      await sessions().rotate(session.id, hashToken(next), newToken());
      expect(await sessions().byTokenHash(hashToken(token))).toBeNull();
      expect((await sessions().byTokenHash(hashToken(next)))!.session.id).toBe(session.id);
    });

    it('revokeAllOfUser ends every session but the one kept', async () => {
      const user = await aUser();
      const made: { id: string }[] = [];
      for (let i = 0; i < 3; i++)
        made.push(
          await sessions().insert({
            tokenHash: hashToken(newToken()),
            userId: user.id,
            accountId: null,
            csrfToken: newToken(),
            passwordConfirmed: false,
            ip: null,
            userAgent: null,
          }),
        );
      expect(
        await db.transaction((em) => sessions().revokeAllOfUser(em, user.id, made[0].id)),
      ).toBe(2);
      expect(await sessions().openCountOfUser(user.id)).toBe(1);
    });
  });

  describe('mailed tokens', () => {
    const tokens = () => ctx.get(UserTokensStore);

    it('are used once, even by two requests at the same time', async () => {
      const user = await aUser();
      const token = newToken();
      await db.transaction((em) =>
        tokens().insert(em, {
          purpose: 'reset_password',
          tokenHash: hashToken(token),
          email: user.email,
          userId: user.id,
          ttlMs: 60 * 60_000,
        }),
      );
      const uses = await Promise.all(
        [1, 2].map(() =>
          db.transaction((em) => tokens().consume(em, 'reset_password', hashToken(token))),
        ),
      );
      expect(uses.filter((u) => u !== null)).toHaveLength(1);
      expect(await tokens().usable('reset_password', hashToken(token))).toBeNull();
    });

    it('are not usable for another purpose, nor once expired', async () => {
      const user = await aUser();
      const token = newToken();
      await db.transaction((em) =>
        tokens().insert(em, {
          purpose: 'verify_email',
          tokenHash: hashToken(token),
          email: user.email,
          userId: user.id,
          ttlMs: 24 * 60 * 60_000,
        }),
      );
      expect(await tokens().usable('reset_password', hashToken(token))).toBeNull();
      expect(await tokens().usable('verify_email', hashToken(token))).not.toBeNull();
      await tokens().expireForTest(hashToken(token));
      expect(
        await db.transaction((em) => tokens().consume(em, 'verify_email', hashToken(token))),
      ).toBeNull();
    });
  });

  describe('sign-in failures', () => {
    it('count per (email, address) and per address within the window', async () => {
      const failures = ctx.get(SignInFailuresStore);
      const ip = `192.0.2.${counter++ % 250}`;
      const victim = email();
      await db.transaction(async (em) => {
        await failures.record(em, victim, ip);
        await failures.record(em, victim, ip);
        await failures.record(em, email(), ip);
        await failures.record(em, victim, '192.0.2.251');
      });
      expect(await failures.counts(victim, ip, 60_000)).toEqual({ pair: 2, address: 3 });
      await db.query(`UPDATE sign_in_failures SET created_at = now() - interval '2 minutes'`);
      expect(await failures.counts(victim, ip, 60_000)).toEqual({ pair: 0, address: 0 });
    });
  });

  describe('memberships', () => {
    it('list the accounts of a user with their name, status and role, first joined first', async () => {
      const user = await aUser();
      const first = await ctx.newOwner();
      const second = await ctx.newOwner();
      const store = ctx.get(MembershipsStore);
      // Joined one after the other: within one transaction both would carry its start time.
      await db.transaction((em) => store.insert(em, user.id, first.accountId, 'owner'));
      await db.transaction((em) => store.insert(em, user.id, second.accountId, 'viewer'));
      const list = await store.ofUser(user.id);
      expect(list.map((m) => [m.accountId, m.role, m.accountStatus])).toEqual([
        [first.accountId, 'owner', 'APPROVED'],
        [second.accountId, 'viewer', 'APPROVED'],
      ]);
      await expect(
        db.query(`INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, 'admin')`, [
          user.id,
          first.accountId,
        ]),
      ).rejects.toThrow();
    });
  });

  describe('the mail outbox (no SMTP_URL)', () => {
    it('keeps mail in the caller transaction: a rollback keeps none', async () => {
      const mail = ctx.get(MailService);
      const to = email();
      await expect(
        db.transaction(async (em) => {
          await mail.send({ to, subject: 'rolled back', text: 'x' }, em);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await db.transaction((em) => mail.send({ to, subject: 'kept', text: 'y' }, em));
      const kept = await mail.kept({ to: to.toUpperCase(), limit: 10 });
      expect(kept.map((m) => m.subject)).toEqual(['kept']);
    });
  });
});
