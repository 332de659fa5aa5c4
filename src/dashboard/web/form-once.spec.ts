import type { DataSource } from 'typeorm';
import { hashToken } from '../security/tokens';
import { FormOnce } from './form-once';

/** dashboard_form_tokens in memory, answering the two statements FormOnce makes as PostgreSQL would. */
function fakeDatabase() {
  const rows = new Map<string, { sessionId: string; used: boolean }>();
  const statements: { sql: string; params: unknown[] }[] = [];
  const query = async (sql: string, params: unknown[]) => {
    statements.push({ sql, params });
    const key = (params[0] as Buffer).toString('hex');
    if (sql.includes('INSERT INTO dashboard_form_tokens')) {
      rows.set(key, { sessionId: params[1] as string, used: false });
      return [];
    }
    expect(sql).toMatch(/UPDATE dashboard_form_tokens[\s\S]*used_at IS NULL[\s\S]*RETURNING/);
    const row = rows.get(key);
    if (!row || row.used || row.sessionId !== params[1]) return [[], 0];
    row.used = true;
    return [[{ '?column?': 1 }], 1];
  };
  return { dataSource: { query } as unknown as DataSource, rows, statements };
}

const session = (id: string) => ({ session: { id } as never });

describe('FormOnce', () => {
  it('issues a 256-bit token and keeps only its SHA-256, with the session', async () => {
    const db = fakeDatabase();
    const token = await new FormOnce(db.dataSource).issue(session('s1'));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...db.rows.keys()]).toEqual([hashToken(token).toString('hex')]);
    expect(JSON.stringify(db.statements)).not.toContain(token);
  });

  it('consumes a token exactly once', async () => {
    const forms = new FormOnce(fakeDatabase().dataSource);
    const token = await forms.issue(session('s1'));
    expect(await forms.consume(session('s1'), token)).toBe(true);
    expect(await forms.consume(session('s1'), token)).toBe(false);
  });

  it('of two submits racing, only one counts', async () => {
    const forms = new FormOnce(fakeDatabase().dataSource);
    const token = await forms.issue(session('s1'));
    const results = await Promise.all([
      forms.consume(session('s1'), token),
      forms.consume(session('s1'), token),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("refuses another session's token, an unknown one and a malformed one", async () => {
    const db = fakeDatabase();
    const forms = new FormOnce(db.dataSource);
    const token = await forms.issue(session('s1'));
    expect(await forms.consume(session('s2'), token)).toBe(false);
    expect(await forms.consume(session('s1'), 'A'.repeat(43))).toBe(false);
    const before = db.statements.length;
    for (const bad of [undefined, '', 'short', `${token}x`, 42])
      expect(await forms.consume(session('s1'), bad)).toBe(false);
    expect(db.statements).toHaveLength(before);
    // Still usable by its own session after the refusals.
    expect(await forms.consume(session('s1'), token)).toBe(true);
  });
});
