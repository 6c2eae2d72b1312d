import { execa } from 'execa';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from '../support/build-once.js';

const DEMO = join(REPO_ROOT, 'dist/demo/main.js');
const env = { NO_COLOR: '1', PAGEJSON_DATA_DIR: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };

/** The envelope printed after `GET … → 200`, up to the blank line before "call it again". */
function printedEnvelope(stdout: string): {
  data: { products?: Array<Record<string, unknown>> } & Record<string, unknown>;
  errors: unknown;
} {
  const start = stdout.indexOf('{', stdout.indexOf('→ 200'));
  const end = stdout.indexOf('\n\ncall it again:');
  return JSON.parse(stdout.slice(start, end)) as never;
}

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

describe('npm run demo', () => {
  it('generates from the bundled listing, serves it, prints the JSON and a curl command, and exits with PAGEJSON_DEMO_ONCE=1', async () => {
    const result = await execa(process.execPath, [DEMO], {
      cwd: REPO_ROOT,
      reject: false,
      env: { ...env, PAGEJSON_DEMO_ONCE: '1' },
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const envelope = printedEnvelope(result.stdout);
    expect(envelope.errors).toBeNull();
    const items = Object.values(envelope.data).find(Array.isArray) as Array<Record<string, unknown>>;
    expect(items).toHaveLength(14);
    expect(JSON.stringify(items[0])).toContain('A Light in the Attic');
    expect(result.stdout).toMatch(/curl -s -H 'apikey: pj_[0-9A-Za-z]+' http:\/\/127\.0\.0\.1:\d+\/external\/books/);
    expect(result.stdout).toMatch(/the dashboard .*\n {2}http:\/\/127\.0\.0\.1:\d+\/ui\/login\?token=[A-Za-z0-9_-]{43}$/m);
  });

  it("falls back to a free port when the example site's port 4173 is taken", async () => {
    const blocker = createServer();
    const blocked = await new Promise<boolean>((resolve) => {
      blocker.once('error', () => resolve(false));
      blocker.listen(4173, '127.0.0.1', () => resolve(true));
    });
    try {
      const result = await execa(process.execPath, [DEMO], {
        cwd: REPO_ROOT,
        reject: false,
        env: { ...env, PAGEJSON_DEMO_ONCE: '1' },
        timeout: 60_000,
      });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const site = /example site\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(result.stdout);
      expect(site).not.toBeNull();
      // Either we held 4173 and the demo moved elsewhere, or something else holds it: in both cases not 4173.
      expect(Number(site![1])).not.toBe(4173);
      expect(printedEnvelope(result.stdout).errors).toBeNull();
    } finally {
      if (blocked) await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('keeps serving until SIGINT, and the printed curl command works meanwhile', async () => {
    const child = execa(process.execPath, [DEMO], { cwd: REPO_ROOT, reject: false, env, timeout: 60_000 });
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('serving until Ctrl-C')) resolve();
      });
      child.once('exit', () => reject(new Error(`demo exited early:\n${stdout}`)));
    });
    const [, key, url] = /curl -s -H 'apikey: (\S+)' (\S+)/.exec(stdout)!;
    const again = await fetch(url!, { headers: { apikey: key! } });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-pagejson-cache')).toBe('HIT');
    // The command printed for a new sign-in link works as printed, from the checkout (--no-open: no browser in a test).
    const [, command] = /`(node \S+ dashboard --project \S+)` makes new ones/.exec(stdout)!;
    const [program, ...args] = command!.split(' ');
    const link = await execa(program!, [...args, '--no-open'], { cwd: REPO_ROOT, reject: false, env });
    expect(link.exitCode, link.stderr).toBe(0);
    expect(link.stdout.trim()).toMatch(new RegExp(`^${new URL(url!).origin}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(0);
    await expect(fetch(url!, { headers: { apikey: key! } })).rejects.toThrow();
  });
});
