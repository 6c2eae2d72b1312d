import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedMonitorStore } from '../../src/core/monitor/embedded-store.js';
import { createDeliveryWorker, type DeliveryEvent } from '../../src/core/monitor/webhooks/delivery-worker.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { exampleConfigText } from '../support/example-configs.js';
import { startWebhookReceiver, TEST_SECRET } from '../support/webhook-receiver.js';

/**
 * Config and project text that reaches other people's screens (issue 40, item 12 and the webhook secret):
 * `diff --format github` writes a job summary that config text must not turn into Markdown, and a webhook
 * secret too short to trust is refused by `validate` and signs nothing in the daemon.
 */
let dir: string;
const cli = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [CLI_BIN, ...args], { cwd: dir, reject: false, env: { NO_COLOR: '1', CI: 'true', ...env } });
const git = (args: string[]) => execa('git', ['-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { cwd: dir });

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-edges-'));
  await writeFile(
    join(dir, 'pagejson.json'),
    `${JSON.stringify({ webhooks: [{ url: 'https://hooks.example/pagejson', secretEnv: 'HOOK_SECRET' }] }, null, 2)}\n`,
  );
  await mkdir(join(dir, 'configs'));
  await writeFile(join(dir, 'configs/books.json'), exampleConfigText('books', 'http://127.0.0.1:4173'));
  await git(['init', '-q', '-b', 'main']);
  await git(['add', '.']);
  await git(['commit', '-qm', 'books']);
}, 300_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Code spans (CommonMark: a run of n backticks to the next run of exactly n) taken out of a line. */
function withoutCodeSpans(line: string): string {
  let out = '';
  let at = 0;
  while (at < line.length) {
    const run = /`+/.exec(line.slice(at));
    if (!run) break;
    const start = at + run.index;
    const close = new RegExp(`(?<!\`)${run[0]}(?!\`)`).exec(line.slice(start + run[0].length));
    if (!close) break;
    out += line.slice(at, start);
    at = start + run[0].length + close.index + run[0].length;
  }
  return out + line.slice(at);
}

/** Markdown punctuation that is not backslash-escaped, outside code spans. */
function unescapedMarkup(line: string): string[] {
  const text = withoutCodeSpans(line);
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i += 1;
    else if ('[]()!<>`#*_|~&'.includes(text[i]!)) found.push(text[i]!);
  }
  return found;
}

describe('pagejson diff --format github', () => {
  it('shows config text that holds Markdown as text: no heading, image, link or HTML of its own', async () => {
    const file = join(dir, 'configs/books.json');
    const config = JSON.parse(await readFile(file, 'utf8')) as {
      description?: string;
      rule?: string | null;
      structure: Array<{ description?: string }>;
    };
    config.structure[0]!.description =
      '# Owned\n![pixel](https://evil.example/p.png) [click here](https://evil.example/) <img src=x onerror=alert(1)> www.evil.example ``` `';
    config.rule = 'see https://evil.example/rule and <b>this</b>';
    config.description = 'a" [quoted](https://evil.example/) "b';
    await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
    const summaryFile = join(dir, 'summary.md');
    const result = await cli(['diff', 'books', '--format', 'github'], { GITHUB_STEP_SUMMARY: summaryFile });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(summaryFile, 'utf8')).toBe(`${result.stdout}\n`);
    const [heading, blank, ...items] = result.stdout.split('\n');
    expect(heading).toBe('### pagejson: `books` (revision 1 → 1)');
    expect(blank).toBe('');
    expect(items).toHaveLength(3);
    for (const item of items) {
      // One list item per change: nothing starts a block of its own, nothing outside code is markup.
      expect(item.startsWith('- ')).toBe(true);
      expect([item, unescapedMarkup(item.slice(2))]).toEqual([item, []]);
    }
    // The text is all there, to be read.
    const descriptionLine = items.find((item) => item.includes('Owned'))!;
    expect(descriptionLine).toContain(
      '![pixel](https://evil.example/p.png) [click here](https://evil.example/) <img src=x onerror=alert(1)>',
    );
    expect(descriptionLine).toMatch(/ ```` # Owned .* ``` ` ````$/);
  });
});

describe('webhook signing secrets', () => {
  it('validate refuses a secret under 16 bytes, without printing it', async () => {
    const short = await cli(['validate'], { HOOK_SECRET: 'hunter2' });
    expect(short.exitCode).toBe(1);
    expect(short.stdout).toMatch(
      /pagejson\.json:\d+:\d+ \$\.webhooks\[0\]\.secretEnv: the webhook signing secret in HOOK_SECRET is 7 bytes long; it needs at least 16/,
    );
    expect(short.stdout).toContain('hint: generate one with `echo whsec_$(openssl rand -base64 32)`');
    expect(short.stdout).not.toContain('hunter2');
    const shortEncoded = await cli(['validate', '--format', 'json'], {
      HOOK_SECRET: `whsec_${Buffer.from('eight by').toString('base64')}`,
    });
    expect(JSON.parse(shortEncoded.stdout).problems).toEqual([
      expect.objectContaining({ path: '$.webhooks[0].secretEnv', message: expect.stringContaining('is 8 bytes long') }),
    ]);
    expect((await cli(['validate'], { HOOK_SECRET: TEST_SECRET })).exitCode).toBe(0);
    expect((await cli(['validate'], { HOOK_SECRET: 'a passphrase of 16+ bytes' })).exitCode).toBe(0);
    // Not set here (CI validating configs has no secrets): the daemon reports it when it delivers.
    expect((await cli(['validate'])).exitCode).toBe(0);
  });

  it('the daemon signs nothing with a short secret: the delivery fails and says why', async () => {
    const receiver = await startWebhookReceiver();
    const store = await createEmbeddedMonitorStore({ file: join(dir, 'monitors.json') });
    const events: DeliveryEvent[] = [];
    const worker = createDeliveryWorker({
      store,
      env: { HOOK_SECRET: 'x' },
      settings: { timeoutMs: 5_000, firstRetryMs: 60_000, retryForMs: 3_600_000, allowPrivateNetworks: true },
      onEvent: (event) => events.push(event),
    });
    try {
      const now = Date.now();
      await store.enqueue([
        {
          id: 'msg_short',
          url: receiver.url,
          secretEnv: 'HOOK_SECRET',
          type: 'pagejson.test',
          payload: '{"type":"pagejson.test","timestamp":"2026-01-01T00:00:00Z","data":{}}',
          createdAt: now,
          attempts: 0,
          nextAttemptAt: now,
          status: 'pending',
          lastError: null,
          deliveredAt: null,
        },
      ]);
      expect(await worker.drain()).toBe(1);
      expect(receiver.attempts).toEqual([]);
      expect(events).toEqual([
        expect.objectContaining({
          outcome: 'retry',
          error: expect.stringContaining('the webhook signing secret in HOOK_SECRET is 1 byte long; it needs at least 16'),
        }),
      ]);
    } finally {
      await worker.stop();
      await store.close?.();
      await receiver.close();
    }
  });
});
