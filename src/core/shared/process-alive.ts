import { readFileSync } from 'node:fs';

/**
 * Whether the process holding a pid file (the daemon's lock) still runs. A killed daemon whose parent has not
 * reaped it yet (a supervisor that is slow to wait, a shell that exec'd into something that never waits) is a
 * zombie: signal 0 still reaches it, but it holds nothing and will never answer, so it counts as gone. Linux
 * says so in /proc/<pid>/stat (state `Z`, or `X` while it is being reaped); elsewhere signal 0 decides.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(pid);
  return state !== 'Z' && state !== 'X';
}

/** The state letter of /proc/<pid>/stat, or undefined where there is no /proc. */
function processState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) S …`: comm may hold spaces and parentheses, so the state follows the last `)`.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || undefined;
}
