import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isExecutable, skipWithoutBinary } from './required-binary.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
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
  return skipWithoutBinary(redisServerAvailable, 'Redis', `redis-server not found at ${REDIS_SERVER_BIN} (apt-get install redis-server, or set PAGEJSON_REDIS_SERVER)`);
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

/** Resolves once the server answers PING with PONG over a raw socket (no client library in the way). */
function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** `port`: restart on the port of a server stopped earlier (reconnection tests); default a free one. */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  // A port picked free can be taken by someone else before redis binds it: try a few.
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = await mkdtemp(join(tmpdir(), 'pagejson-redis-'));
    const port = options.port ?? (await freePort());
    const child = spawn(REDIS_SERVER_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += String(chunk)));
    child.stderr?.on('data', (chunk) => (output += String(chunk)));
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const deadline = Date.now() + 10_000;
    let ready = false;
    while (!ready && !spawnError && child.exitCode === null && Date.now() < deadline) {
      ready = await pingOnce(port);
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (ready) {
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
