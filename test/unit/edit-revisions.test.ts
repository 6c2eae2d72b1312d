import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { serializeConfig } from '../../src/core/config/write.js';
import { openConfigForEdit, saveEditedConfig } from '../../src/core/edit/config-file.js';
import { applyEdits } from '../../src/core/edit/operations.js';
import { KEPT_REVISIONS, keepRevision, listRevisions } from '../../src/core/edit/revisions.js';

/** Revisions a save replaces are kept in the data dir, listed newest first with what each one changed. */
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-revisions-'));
  dirs.push(dir);
  return dir;
}

const base = (): ApiConfig =>
  ApiConfigSchema.parse({
    apiId: 'books',
    url: 'https://shop.example/books?page=1',
    structure: [{ name: 'title', type: 'string', selector: 'h1' }],
  });

describe('config revisions', () => {
  it('keeps the replaced revision on each save and lists what every revision changed', async () => {
    const root = await temp();
    const file = join(root, 'books.json');
    const dataDir = join(root, '.pagejson');
    await writeFile(file, serializeConfig(base()));
    for (const operations of [
      [{ kind: 'var' as const, spec: 'query:page', name: 'page' }],
      [{ kind: 'rename' as const, path: 'title', name: 'heading' }],
    ]) {
      const editable = await openConfigForEdit(file);
      await saveEditedConfig(editable, applyEdits(editable.original, operations).config, dataDir);
    }
    const current = (await openConfigForEdit(file)).original;
    expect(current.revision).toBe(3);
    expect((await readdir(join(dataDir, 'revisions', 'books'))).sort()).toEqual(['1.json', '2.json']);
    expect(((await stat(join(dataDir, 'revisions', 'books', '1.json'))).mode & 0o777).toString(8)).toBe('600');
    const listed = await listRevisions(dataDir, current);
    expect(listed.map((entry) => [entry.revision, entry.replacedAt === null])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
    expect(listed[0]!.changes!.map((change) => change.text)).toEqual(['field title renamed to heading']);
    expect(listed[0]!.patch).toContain('--- books.json (revision 2)');
    expect(listed[0]!.patch).toMatch(/^-\s+"name": "title",$/m);
    expect(listed[0]!.patch).toMatch(/^\+\s+"name": "heading",$/m);
    expect(listed[2]!.patch).toBeNull();
    expect(listed[1]!.changes!.map((change) => change.text).join(' ')).toContain('variable page added');
    expect(listed[2]!.changes).toBeNull();
  });

  it('keeps the newest ones only, ignores foreign files, and refuses an apiId that is not one', async () => {
    const dataDir = await temp();
    for (let revision = 1; revision <= KEPT_REVISIONS + 5; revision += 1) await keepRevision(dataDir, { ...base(), revision });
    await writeFile(join(dataDir, 'revisions', 'books', 'notes.txt'), 'x');
    await writeFile(join(dataDir, 'revisions', 'books', '0.json'), 'x');
    const names = await readdir(join(dataDir, 'revisions', 'books'));
    expect(names.filter((name) => /^[1-9]/.test(name))).toHaveLength(KEPT_REVISIONS);
    expect(names).not.toContain('1.json');
    const listed = await listRevisions(dataDir, { ...base(), revision: KEPT_REVISIONS + 6 });
    expect(listed).toHaveLength(KEPT_REVISIONS + 1);
    await expect(keepRevision(dataDir, { ...base(), apiId: '../evil' })).rejects.toThrow(RangeError);
    await expect(listRevisions(dataDir, { ...base(), apiId: '..' })).rejects.toThrow(RangeError);
  });
});
