import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anAccount, as, TestAccount } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

interface Lan {
  code: string;
  slug: string;
  name: string;
  kommuner: { code: string; slug: string; name: string }[];
}

interface Category {
  slug: string;
  name: string;
  isLeaf: boolean;
  attributes: { key: string; type: string; required: boolean; values?: string[] }[];
  children: Category[];
}

/** SCB's list as shipped in shared/reference, read independently of the service's own loader. */
function scbRows(): string[][] {
  const text = readFileSync(
    join(__dirname, '../../src/reference/data/sweden-lan-kommuner.tsv'),
    'utf8',
  );
  return text
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'));
}

describe('Reference data', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await createTestApp();
    account = await anAccount(t).build();
  });
  afterAll(() => t.close());

  describe('GET /v1/locations', () => {
    let lans: Lan[];
    beforeAll(async () => {
      lans = (await as(t, account.liveKey).get('/v1/locations').expect(200)).body.data;
    });

    it('lists 21 län and 290 kommuner', () => {
      expect(lans).toHaveLength(21);
      expect(lans.flatMap((l) => l.kommuner)).toHaveLength(290);
    });

    it('puts every kommun in its own län, as SCB does', () => {
      const lanOf = new Map(lans.flatMap((l) => l.kommuner.map((k) => [k.code, l.code] as const)));
      for (const [lanCode, , , kommunCode] of scbRows())
        expect([kommunCode, lanOf.get(kommunCode)]).toEqual([kommunCode, lanCode]);
      for (const lan of lans)
        for (const k of lan.kommuner) expect(k.code.slice(0, 2)).toBe(lan.code);
    });

    it('carries names, codes and slugs', () => {
      const stockholm = lans.find((l) => l.code === '01')!;
      expect(stockholm).toMatchObject({ slug: 'stockholm', name: 'Stockholms län' });
      expect(stockholm.kommuner).toContainEqual({
        code: '0114',
        slug: 'upplands-vasby',
        name: 'Upplands Väsby',
      });
      const jonkoping = lans.find((l) => l.code === '06')!;
      expect(jonkoping.kommuner).toContainEqual({
        code: '0643',
        slug: 'habo-jonkoping',
        name: 'Habo',
      });
      const slugs = lans.flatMap((l) => l.kommuner.map((k) => k.slug));
      expect(new Set(slugs).size).toBe(290);
    });
  });

  describe('GET /v1/categories', () => {
    let tree: Category[];
    beforeAll(async () => {
      tree = (await as(t, account.liveKey).get('/v1/categories').expect(200)).body.data;
    });

    it('has the marketplace top level, each with sub-categories', () => {
      expect(tree.map((c) => c.slug)).toEqual(
        expect.arrayContaining([
          'vehicles',
          'housing',
          'electronics',
          'home',
          'leisure',
          'fashion',
          'business',
          'jobs',
        ]),
      );
      for (const top of tree) {
        expect(top.isLeaf).toBe(false);
        expect(top.children.length).toBeGreaterThan(0);
      }
    });

    it('gives leaves typed attributes, such as cars and apartments', () => {
      const all = (nodes: Category[]): Category[] => nodes.flatMap((n) => [n, ...all(n.children)]);
      const cars = all(tree).find((c) => c.slug === 'cars')!;
      expect(cars.isLeaf).toBe(true);
      const keys = cars.attributes.map((a) => a.key);
      expect(keys).toEqual(
        expect.arrayContaining(['make', 'model', 'modelYear', 'mileageKm', 'fuel', 'gearbox']),
      );
      expect(cars.attributes.find((a) => a.key === 'fuel')).toMatchObject({
        type: 'enum',
        values: expect.arrayContaining(['petrol', 'electric']),
      });
      const apartments = all(tree).find((c) => c.slug === 'apartments')!;
      expect(apartments.attributes.map((a) => a.key)).toEqual(
        expect.arrayContaining(['rooms', 'livingAreaM2']),
      );
      const slugs = all(tree).map((c) => c.slug);
      expect(new Set(slugs).size).toBe(slugs.length);
    });

    it('is readable with a key of any scope', async () => {
      const key = (await as(t, account.liveKey).get('/v1/me')).body.data.key;
      expect(key.scopes.length).toBe(4);
    });
  });
});
