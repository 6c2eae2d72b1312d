import { watch } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';

/**
 * Issue 52, item 8: the extraction thread loaded the config schemas (zod) for one regex helper, and started only
 * once the first page was in, so a paginated read waited for it between page 1 and page 2. A
 * module hook logs what every thread of the CLI loads; the source holds its first page back until the log
 * shows the extraction thread started, which happens only if the thread starts while that page is fetched.
 */
const HOOK = join(REPO_ROOT, 'test/support/load-log/register.mjs');
const THREAD_MODULE = 'piscina/dist/worker.js';
let dir: string;
let server: Server;
let origin: string;
/** How the source's first page was let go: when the extraction thread had started, or at the fallback. */
let firstPage: 'thread started' | 'fallback' | undefined;

const page = (n: number) =>
  `<html><body><h1>Books</h1><ul>${[1, 2, 3].map((i) => `<li class="book"><a class="title" href="/b/${n}-${i}">Book ${n}-${i}</a></li>`).join('')}</ul>${
    n < 3 ? `<a rel="next" href="/paged?page=${n + 1}">next</a>` : ''
  }</body></html>`;

/** Resolves when the log holds `text`, or after `fallbackMs` (a failing case must not hang the file). */
function whenLogged(log: string, text: string, fallbackMs: number): Promise<'thread started' | 'fallback'> {
  return new Promise((resolve) => {
    const check = async () => ((await readFile(log, 'utf8').catch(() => '')).includes(text) ? finish('thread started') : undefined);
    const watcher = watch(dir, () => void check());
    const timer = setTimeout(() => finish('fallback'), fallbackMs);
    const finish = (how: 'thread started' | 'fallback') => {
      watcher.close();
      clearTimeout(timer);
      resolve(how);
    };
    void check();
  });
}

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-run-start-'));
  server = createServer((req, res) => {
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(n));
    if (n !== 1) return answer();
    void whenLogged(join(dir, 'loaded.txt'), THREAD_MODULE, 20_000).then((how) => {
      firstPage = how;
      answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeFile(join(dir, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true, timeoutMs: 60_000 } }));
  await mkdir(join(dir, 'configs'));
  const structure = [
    { name: 'books', type: 'array', selector: 'li.book', fields: [{ name: 'title', type: 'string', selector: 'a.title' }] },
  ];
  const config = { apiId: 'paged', url: `${origin}/paged?page=1`, pagination: { next: 'a[rel=next]' }, structure };
  await writeFile(join(dir, 'configs', 'paged.json'), JSON.stringify(config));
}, 600_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('run starts quickly', () => {
  it('starts the extraction thread while the first page is fetched, not after it', async () => {
    const log = join(dir, 'loaded.txt');
    const result = await execa(process.execPath, ['--import', HOOK, CLI_BIN, 'run', 'paged', '--json'], {
      cwd: dir,
      env: { LOADED_LOG: log, NO_COLOR: '1' },
      reject: false,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { pages: number; data: { books: unknown[] } };
    expect(out.pages).toBe(3);
    expect(out.data.books).toHaveLength(9);
    expect(firstPage).toBe('thread started');
  }, 120_000);

  it("the extraction thread's module loads no config schemas (zod)", async () => {
    const log = join(dir, 'thread-loaded.txt');
    const thread = join(REPO_ROOT, 'dist/src/core/extract/workers/run-extraction.js');
    const result = await execa(
      process.execPath,
      ['--import', HOOK, '--input-type=module', '-e', `await import(${JSON.stringify(thread)})`],
      {
        env: { LOADED_LOG: log },
        reject: false,
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const loaded = (await readFile(log, 'utf8')).split('\n');
    expect(loaded.some((url) => url.includes('/core/extract/engine/compile.js'))).toBe(true);
    expect(loaded.filter((url) => url.includes('node_modules/zod/'))).toEqual([]);
  }, 60_000);
});
