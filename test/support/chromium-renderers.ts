import { readFile } from 'node:fs/promises';

/**
 * Chromium renderer processes started under this test process (a browser's pages run in them), read from
 * `ps` and /proc: the hostile-page tests count them before and after a fetch and read how busy they are.
 */
export interface RendererProcess {
  pid: number;
  /** CPU time used so far, in clock ticks (user + system), from /proc/<pid>/stat. */
  cpuTicks: number;
}

async function processTable(): Promise<Array<{ pid: number; ppid: number; args: string }>> {
  const { execFile } = await import('node:child_process');
  const output = await new Promise<string>((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,args=', '-ww'], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  return output
    .trim()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? '' }));
}

async function cpuTicks(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

export async function rendererProcesses(): Promise<RendererProcess[]> {
  const rows = await processTable();
  const descendants = new Set<number>([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (!descendants.has(row.pid) && descendants.has(row.ppid)) {
        descendants.add(row.pid);
        grew = true;
      }
    }
  }
  const renderers = rows.filter((row) => row.pid !== process.pid && descendants.has(row.pid) && row.args.includes('--type=renderer'));
  const found: RendererProcess[] = [];
  for (const row of renderers) {
    const ticks = await cpuTicks(row.pid);
    if (ticks !== undefined) found.push({ pid: row.pid, cpuTicks: ticks });
  }
  return found;
}
