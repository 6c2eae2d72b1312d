import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigDir, loadConfigFile, MAX_CONFIG_BYTES, parseConfigText } from '../../src/core/registry/load.js';
import { createConfigRegistry } from '../../src/core/registry/config-registry.js';
import { createKey, revokeKey } from '../../src/core/access/key-service.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { parseHtml } from '../../src/core/extract/engine/dom.js';
import { selectorCostProblem } from '../../src/core/extract/engine/selector-cost.js';

/** Hardening (issue 16): files, ids and selectors from outside, checked before they are used. */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-hardening-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (apiId: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ apiId, url: 'https://shop.example/x', structure: [{ name: 'title', type: 'string', selector: 'h1' }], ...extra })}\n`;

describe('ids from outside are never object keys', () => {
  it('refuses to revoke "__proto__" and leaves Object.prototype alone', async () => {
    const store = await createLowdbStore({ file: join(dir, 'state.json') });
    for (const id of ['__proto__', 'constructor', 'toString', 'k_short']) {
      await expect(revokeKey(store, id)).rejects.toMatchObject({ code: 'KEY_NOT_FOUND' });
    }
    expect(({} as Record<string, unknown>).status).toBeUndefined();
    await store.close();
  });

  it('reads a state file holding "__proto__" keys as plain data, polluting nothing', async () => {
    const file = join(dir, 'state.json');
    await writeFile(
      file,
      '{"version":1,"accounts":{"__proto__":{"id":"x","balance":5,"createdAt":"t"}},"keys":{"__proto__":{"status":"revoked"}},"usage":{},"endpoints":{}}',
    );
    const store = await createLowdbStore({ file });
    expect(({} as Record<string, unknown>).balance).toBeUndefined();
    expect(({} as Record<string, unknown>).status).toBeUndefined();
    expect(await store.getKey('constructor')).toBeUndefined();
    expect(await store.getAccount('toString')).toBeUndefined();
    const created = await createKey(store, { scope: null }, { freeMilliCredits: 1_000 });
    expect((await store.getKey(created.id))?.status).toBe('active');
    await store.close();
  });

  it('fails validate for a placeholder that is not declared, whatever its name ({{ constructor }})', () => {
    const result = parseConfigText(config('proto', { url: 'https://shop.example/{{ constructor }}' }), 'proto.json');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.message)).toContain('placeholder {{ constructor }} has no entry in variables');
    const declared = parseConfigText(
      config('proto', { url: 'https://shop.example/{{ constructor }}', variables: { constructor: { example: 'x' } } }),
      'proto.json',
    );
    expect(declared.ok).toBe(true);
    const proto = parseConfigText(
      config('proto', { url: 'https://shop.example/{{ __proto__ }}', variables: JSON.parse('{"__proto__":{"example":"x"}}') }),
      'proto.json',
    );
    expect(proto.ok).toBe(false);
  });
});

/**
 * Tells whether anything opens a FIFO for reading: a writer's open of a FIFO waits until a reader opens it, so
 * ours ends (and is closed at once, letting that reader go on) only if someone did. `release` opens the read
 * end itself, without waiting, so that a writer's open still pending ends too.
 */
function watchFifoReaders(path: string): { opened(): boolean; release(): Promise<void> } {
  let opened = false;
  const writer = open(path, 'w').then(async (handle) => {
    opened = true;
    await handle.close();
  });
  return {
    opened: () => opened,
    async release() {
      const reader = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
      await writer;
      await reader.close();
    },
  };
}

describe('config loading cannot hang or leak', () => {
  it('skips a FIFO without opening it, and an escaping symlink without reading it', async () => {
    const configs = join(dir, 'configs');
    await mkdir(configs);
    await writeFile(join(configs, 'good.json'), config('good'));
    execFileSync('mkfifo', [join(configs, 'pipe.json')]);
    await writeFile(join(dir, 'outside.json'), '{"secret": "TOP-SECRET-VALUE"');
    await symlink(join(dir, 'outside.json'), join(configs, 'leak.json'));
    await writeFile(join(configs, 'inside.json'), config('inside'));
    await symlink(join(configs, 'inside.json'), join(configs, 'alias.json'));
    await mkdir(join(configs, 'folder.json'));
    const readers = watchFifoReaders(join(configs, 'pipe.json'));
    const set = await loadConfigDir(configs);
    expect(readers.opened()).toBe(false);
    await readers.release();
    expect([...set.configs.keys()].sort()).toEqual(['good', 'inside']);
    const messages = set.problems.map((p) => `${p.file.split('/').pop()}: ${p.message}`);
    expect(messages).toContain('pipe.json: skipped: a named pipe (FIFO)');
    expect(messages).toContain('leak.json: skipped: a symbolic link that leads outside the configs folder');
    expect(messages).toContain('folder.json: skipped: a folder');
    // The link inside the folder is read, and reported as the duplicate apiId (or a file name mismatch) it is.
    expect(messages.some((m) => m.startsWith('alias.json:'))).toBe(true);
    expect(JSON.stringify(set.problems)).not.toContain('TOP-SECRET-VALUE');
  });

  it("the daemon's first load (blocking reads) skips the same files in the same words, and a huge one unread", async () => {
    const configs = join(dir, 'configs');
    await mkdir(configs);
    await writeFile(join(configs, 'good.json'), config('good'));
    execFileSync('mkfifo', [join(configs, 'pipe.json')]);
    await writeFile(join(dir, 'outside.json'), '{"secret": "TOP-SECRET-VALUE"');
    await symlink(join(dir, 'outside.json'), join(configs, 'leak.json'));
    await symlink(join(dir, 'missing.json'), join(configs, 'dangling.json'));
    await mkdir(join(configs, 'folder.json'));
    await writeFile(join(configs, 'huge.json'), ' '.repeat(MAX_CONFIG_BYTES + 10));
    const readers = watchFifoReaders(join(configs, 'pipe.json'));
    const registry = await createConfigRegistry({ dir: configs, watch: false });
    expect(readers.opened()).toBe(false);
    await readers.release();
    expect(registry.list().map((c) => c.apiId)).toEqual(['good']);
    const messages = registry.problems().map((p) => `${p.file.split('/').pop()}: ${p.message}`);
    expect(messages).toContain('pipe.json: skipped: a named pipe (FIFO)');
    expect(messages).toContain('leak.json: skipped: a symbolic link that leads outside the configs folder');
    expect(messages).toContain('folder.json: skipped: a folder');
    expect(messages).toContain(`huge.json: skipped: larger than ${MAX_CONFIG_BYTES} bytes`);
    expect(messages.some((m) => m.startsWith('dangling.json: cannot read file'))).toBe(true);
    expect(JSON.stringify(registry.problems())).not.toContain('TOP-SECRET-VALUE');
    registry.close();
  });

  it('refuses a file over the size limit without reading it whole', async () => {
    const file = join(dir, 'huge.json');
    await writeFile(file, ' '.repeat(MAX_CONFIG_BYTES + 10));
    const result = await loadConfigFile(file);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]!.message).toMatch(/^skipped: larger than/);
    expect((await readFile(file)).length).toBe(MAX_CONFIG_BYTES + 10);
  });
});

describe('pages and selectors with unbounded cost', () => {
  it('stops parsing past the depth and element limits with EXTRACTION_LIMIT', () => {
    expect(() => parseHtml('<div>'.repeat(600), { maxDepth: 512, maxElements: 1_000 })).toThrow(
      expect.objectContaining({ code: 'EXTRACTION_LIMIT', message: expect.stringContaining('deeper than 512 levels') }),
    );
    expect(() => parseHtml('<p>x</p>'.repeat(1_001), { maxDepth: 512, maxElements: 1_000 })).toThrow(
      /more than 1000 elements \(extraction\.maxElements/,
    );
    expect(parseHtml('<div>'.repeat(500), { maxDepth: 512, maxElements: 1_000 }).children.length).toBe(1);
  });

  it('refuses :has() over siblings and nested :has(), and allows the bounded forms', () => {
    for (const selector of [
      'li:has(~ li ~ li ~ li .nomatch)',
      'li:has(+ li)',
      'div:not(:has(~ p))',
      'a:has(b:has(c))',
      'ul:is(:has(li ~ li))',
    ]) {
      expect(selectorCostProblem(selector), selector).not.toBeNull();
    }
    for (const selector of ['li:has(> a)', 'article:has(img)', 'li:nth-child(2n+1)', 'li ~ li', 'h2 + p', 'div.card:not(.ad) > a[href]']) {
      expect(selectorCostProblem(selector), selector).toBeNull();
    }
    expect(selectorCostProblem('div '.repeat(40))).toMatch(/more than 32 parts/);
  });

  it('makes validate report a refused selector with its path', () => {
    const result = parseConfigText(
      config('costly', {
        structure: [{ name: 'items', type: 'array', selector: 'li:has(~ li ~ li ~ li .nomatch)', items: { type: 'string' } }],
      }),
      'costly.json',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems[0]).toMatchObject({ path: '$.structure[0].selector' });
      expect(result.problems[0]!.message).toMatch(/^CSS selector is refused: ":has\(\)" over siblings/);
    }
  });
});
