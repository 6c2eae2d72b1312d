import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isExecutable, skipWithoutBinary } from './required-binary.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * A real `redis-server` for the Redis driver's tests: started on a free loopback port in a temp dir, with
 * persistence off (`--save '' --appendonly no`), stopped and removed afterwards. Outside CI a missing binary
 * skips those tests with a visible notice; under CI=true they run anyway and fail, so a CI image without
 * redis-server can never pass by skipping.
 */
export const REDIS_SERVER_BIN = process.env.PAGEJSON_REDIS_SERVER ?? findOnPath('redis-server') ?? '/usr/bin/redis-server';

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export const redisServerAvailable = isExecutable(REDIS_SERVER_BIN);

/** True when the Redis tests must be skipped; prints why, once per test file. */
export function skipRedisTests(): boolean {
  return skipWithoutBinary(
    redisServerAvailable,
    'Redis',
    `redis-server not found at ${REDIS_SERVER_BIN} (apt-get install redis-server, or set PAGEJSON_REDIS_SERVER)`,
  );
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Stop the server and remove its temp dir. */
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections but answers nothing (a hung store); `resume` undoes it. */
  pause(): void;
  resume(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Resolves true once the server prints that it accepts connections (it listens by then), false when it exits,
 * cannot be spawned, or says nothing of the kind within `ms`.
 */
function announcedReady(child: ChildProcess, output: () => string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const check = () => {
      if (output().includes('Ready to accept connections')) done(true);
    };
    const failed = () => done(false);
    const timer = setTimeout(failed, ms);
    function done(ready: boolean): void {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', failed);
      child.off('error', failed);
      resolve(ready);
    }
    child.stdout?.on('data', check);
    child.once('exit', failed);
    child.once('error', failed);
    check();
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Moves Redis's expiry clock forward by `ms` for the keys matching `pattern`, as `ms` of waiting would: every
 * time to live is shortened by `ms`, and a key whose time runs out goes (PEXPIRE to a time not in the future
 * deletes it). redis-server keeps its own clock, which a test cannot set.
 */
export async function elapseRedisExpiries(url: string, pattern: string, ms: number): Promise<void> {
  const { createClient } = await import('@redis/client');
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 100 })) {
      for (const key of keys) {
        const left = await client.pTTL(key);
        if (left >= 0) await client.pExpire(key, Math.max(0, left - ms));
      }
    }
  } finally {
    await client.close();
  }
}

/** `port`: restart on the port of a server stopped earlier (reconnection tests); default a free one. */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  // A port picked free can be taken by someone else before redis binds it: try a few.
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = await mkdtemp(join(tmpdir(), 'pagejson-redis-'));
    const port = options.port ?? (await freePort());
    const child = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout?.on('data', (chunk) => (output += String(chunk)));
    child.stderr?.on('data', (chunk) => (output += String(chunk)));
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    if (await announcedReady(child, () => output, 10_000)) {
      let stopping: Promise<void> | undefined;
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
        stop: () =>
          (stopping ??= (async () => {
            child.kill('SIGCONT');
            child.kill('SIGTERM');
            await exited(child);
            await rm(dir, { recursive: true, force: true });
          })()),
      };
    }
    lastError = spawnError ? spawnError.message : output.trim().split('\n').slice(-3).join(' | ');
    await rm(dir, { recursive: true, force: true });
    // A binary that never started emits no exit event: nothing to wait for, and no point retrying.
    if (spawnError) break;
    child.kill('SIGKILL');
    await exited(child);
  }
  throw new Error(`could not start ${REDIS_SERVER_BIN}: ${lastError}`);
}
