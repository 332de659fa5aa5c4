import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigService } from '@nestjs/config';
import type { AllConfig } from '../platform/config';
import { LocalDiskStorage } from './local-disk.storage';

describe('LocalDiskStorage', () => {
  let dir: string;
  let storage: LocalDiskStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lsvc-disk-'));
    const settings: Record<string, string> = {
      'storage.dir': dir,
      'app.publicBaseUrl': 'http://localhost:3000',
    };
    storage = new LocalDiskStorage({
      get: (key: string) => settings[key],
    } as unknown as ConfigService<AllConfig, true>);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores a file whole, leaving no temporary copy', async () => {
    await storage.put('a.webp', Buffer.from('pixels'));
    expect(readdirSync(dir)).toEqual(['a.webp']);
    expect((await storage.get('a.webp'))?.toString()).toBe('pixels');
  });

  it('deletes the half-written copy a process killed inside put() left', async () => {
    await storage.put('a.webp', Buffer.from('pixels'));
    writeFileSync(join(dir, '.a.webp.tmp'), 'half');
    await storage.delete('a.webp');
    expect(readdirSync(dir)).toEqual([]);
    await expect(storage.delete('never-written.webp')).resolves.toBeUndefined();
  });
});
