import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS, missingDaemonFlags } from '../../src/cli/daemon-flags.js';
import { ensureBuilt } from '../support/build-once.js';
import { makeProject, pageConfig, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * `pagejson serve` gives the daemon the V8 flags only Node's command line can give, by replacing its own
 * process (execve): the same process id and standard streams, the flags on its command line.
 */
let temp: TempProject;

beforeAll(async () => {
  await ensureBuilt();
  temp = await makeProject([pageConfig('page', 'https://shop.example/page.html')]);
}, 300_000);

afterAll(async () => {
  await temp?.cleanup();
});

async function commandLine(serve: ServeProcess): Promise<string[]> {
  return (await readFile(`/proc/${serve.child.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
}

async function stop(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGTERM');
  expect((await serve.child).exitCode).toBe(0);
}

describe("the daemon's V8 flags", () => {
  it('are added by the process replacing itself: same pid, its ready line still on the same stdout, then serving', async () => {
    const serve = await spawnServe(temp.root);
    try {
      const args = await commandLine(serve);
      expect(args).toEqual(expect.arrayContaining([...DAEMON_NODE_FLAGS]));
      expect(args.indexOf(DAEMON_NODE_FLAGS[0]!)).toBeLessThan(args.findIndex((arg) => arg.endsWith('pagejson.js')));
      expect(args.slice(-3)).toEqual(['serve', '--port', '0']);
      expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    } finally {
      await stop(serve);
    }
  });

  it("leave an operator's own value alone (NODE_OPTIONS), and are not added with PAGEJSON_DAEMON_FLAGS=off", async () => {
    const environments: Array<Record<string, string>> = [{ NODE_OPTIONS: '--max_semi_space_size=16' }, { PAGEJSON_DAEMON_FLAGS: 'off' }];
    for (const env of environments) {
      const serve = await spawnServe(temp.root, [], env);
      try {
        expect(await commandLine(serve)).not.toContain(DAEMON_NODE_FLAGS[0]);
        expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
      } finally {
        await stop(serve);
      }
    }
  });

  it('count as given in either spelling, on the command line or in NODE_OPTIONS', () => {
    expect(missingDaemonFlags([], undefined)).toEqual([...DAEMON_NODE_FLAGS]);
    expect(missingDaemonFlags(['--max-semi-space-size=4'], undefined)).toEqual([]);
    expect(missingDaemonFlags(['--inspect'], '--max_semi_space_size=32 --trace-gc')).toEqual([]);
    expect(missingDaemonFlags(['--max-old-space-size=512'], '--require x.cjs')).toEqual([...DAEMON_NODE_FLAGS]);
  });
});
