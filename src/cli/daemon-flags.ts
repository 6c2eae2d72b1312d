import { loadNativeAddon } from '../core/shared/native-addon.js';

/**
 * V8 flags the daemon runs with that only Node's command line can give: V8 reads them once, when it makes the
 * heap, so the daemon cannot set them for itself as it does `--heap-growing-percent` (daemon/heap-growth.ts).
 *
 * `--max-semi-space-size=8`: the main thread's young generation at 16 MB instead of V8's 32. Under a load of
 * hits V8 grows it to its maximum and keeps it; with 1,000 configs and 10,000 cache entries the smaller one
 * read 15 MB less RSS, and in turns with the same build at 32 MB the CPU per hit and per miss was no higher
 * (0.91–1.03 and 0.87). At 8 MB (semi-spaces of 4) hits cost 8–14% more: not taken (docs/performance.md,
 * "Memory").
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8'];

type Environment = Record<string, string | undefined>;
type Execve = (file: string, args: string[], environment: Environment) => never;

/** Node's own execve (22.15 and later), else pagejson's addon (native/reexec, which takes NAME=value pairs), else none. */
function findExecve(): Execve | undefined {
  const own = (process as { execve?: Execve }).execve;
  if (own) return own.bind(process);
  const addon = loadNativeAddon<{ execve(file: string, args: string[], pairs: string[]): never }>('reexec', 'reexec');
  if (!addon) return undefined;
  return (file, args, environment) =>
    addon.execve(
      file,
      args,
      Object.entries(environment).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`])),
    );
}

/** V8 takes `--max_semi_space_size` as well as `--max-semi-space-size`. */
const flagName = (arg: string): string => arg.split('=')[0]!.replace(/_/g, '-');

/** The daemon's flags not given yet, on Node's command line or in NODE_OPTIONS (an operator's own value wins). */
export function missingDaemonFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].filter((arg) => arg.startsWith('--')).map(flagName));
  return DAEMON_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/**
 * Replaces this process with the same command plus the daemon's flags: same process id (what a supervisor
 * watches), same standard streams and environment. Returns when there is nothing to add (the replaced process
 * has them), when PAGEJSON_DAEMON_FLAGS=off, or when it cannot (no execve here): the daemon then runs as it
 * was started. Call it before anything else has started, as nothing of this image survives.
 */
export function execWithDaemonFlags(env: Record<string, string | undefined>): void {
  if (env.PAGEJSON_DAEMON_FLAGS === 'off') return;
  const missing = missingDaemonFlags(process.execArgv, env.NODE_OPTIONS);
  if (missing.length === 0) return;
  const execve = findExecve();
  if (!execve) return;
  try {
    execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)], process.env);
  } catch {
    // execve failed (the binary moved, a resource limit): nothing was replaced, so the daemon goes on as it is.
  }
}
