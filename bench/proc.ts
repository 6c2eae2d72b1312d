import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

/**
 * Process helpers of the benchmark: the server under test and the load generator run pinned to different
 * cores (taskset) so that neither steals the other's CPU on a 2-core machine.
 */
export const HAS_TASKSET = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
export const HAS_WRK = spawnSync('wrk', ['--version']).error === undefined;

export function pinned(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  if (cpu === undefined || !HAS_TASKSET) return [command, args];
  return ['taskset', ['-c', String(cpu), command, ...args]];
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Start a process and wait until its output matches `ready`; returns the match. */
export async function startUntil(
  cpu: number | undefined,
  command: string,
  args: string[],
  ready: RegExp,
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Started & { match: RegExpMatchArray }> {
  const [cmd, argv] = pinned(cpu, command, args);
  const child = spawn(cmd, argv, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  // BENCH_TEE: the daemon's output also goes to that file (a --trace-gc of it, for instance).
  const tee = args.includes('serve') ? process.env.BENCH_TEE : undefined;
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} not ready after ${options.timeoutMs ?? 30_000} ms:\n${text}`)),
      options.timeoutMs ?? 30_000,
    );
    const onData = (chunk: Buffer) => {
      if (tee) appendFileSync(tee, chunk);
      text += chunk.toString();
      const found = ready.exec(text);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before it was ready:\n${text}`));
    });
  });
  child.removeAllListeners('exit');
  if (tee) child.stdout!.on('data', (chunk: Buffer) => appendFileSync(tee, chunk));
  return {
    child,
    match,
    output: () => text,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** Resident set size of a process, from /proc (Linux). */
export function rssMegabytes(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
