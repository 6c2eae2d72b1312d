import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runLoad } from './load.js';
import { listingConfig } from './pages.js';
import { startUntil, type Started } from './proc.js';

/**
 * Two builds of the daemon on one path, side by side: `node dist/bench/compare.js <checkout A> <checkout B>`
 * (each a built checkout, e.g. a `git worktree` of another commit after `npm run build`). Both daemons serve
 * the bench's 100 KB listing from the same source, pinned to the same core, and take turns (A B B A …) under
 * the same load, after a warm-up each. A single bench run cannot tell a 10% change from this VM's noise; taking
 * turns, the two builds meet the same neighbours, and the median of CPU per request tells them apart.
 *
 * Each turn also splits the daemon's CPU by thread (/proc/<pid>/task): its main thread, its busiest other
 * thread (on misses, the extraction worker), and the rest (V8's GC and compiler helpers, libuv's pool).
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    path: { type: 'string', default: 'uncached' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '10' },
    connections: { type: 'string' },
    // Node/V8 flags for B's daemon only: the same checkout twice then compares a flag (NODE_OPTIONS refuses most V8 flags).
    'b-node-args': { type: 'string', default: '' },
    // Both builds under load at once, each with half the connections, sharing one core: see `together` below.
    together: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 2 || (values.path !== 'cached' && values.path !== 'uncached')) {
  process.stderr.write(
    'usage: node dist/bench/compare.js <checkout A> <checkout B> [--path cached|uncached] [--rounds 6] [--seconds 4] [--warmup 10] [--connections N] [--b-node-args="--flag ..."]\n',
  );
  process.exit(2);
}
const path = values.path;
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections ?? (path === 'cached' ? 50 : 8));
const SERVER_CPU = 0;
const LOAD_CPU = 1;
const distBench = dirname(fileURLToPath(import.meta.url));

interface Build {
  name: 'A' | 'B';
  cli: string;
  daemon?: Started & { match: RegExpMatchArray };
  url?: string;
  key?: string;
  perRequest: number[];
}

const builds: Build[] = positionals.map((checkout, index) => {
  const cli = join(resolve(checkout), 'bin/pagejson.js');
  if (!existsSync(join(resolve(checkout), 'dist/src/cli/main.js'))) {
    process.stderr.write(`${checkout} is not a built checkout (no dist/src/cli/main.js): run \`npm run build\` there first\n`);
    process.exit(2);
  }
  return { name: index === 0 ? 'A' : 'B', cli, perRequest: [] };
});

/** CPU seconds of each thread of a process, by thread id. */
function threadSeconds(pid: number): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds.set(tid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return seconds;
}

const started: Started[] = [];
let workDir = '';

async function main(): Promise<void> {
  workDir = await mkdtemp(join(tmpdir(), 'pagejson-compare-'));
  const source = await startUntil(LOAD_CPU, process.execPath, [join(distBench, 'servers/source.js')], /source ready on (http:\/\/\S+)/);
  started.push(source);
  const sourceUrl = `${source.match[1]!}/listing.html`;
  for (const build of builds) {
    const dir = join(workDir, build.name);
    await mkdir(join(dir, 'configs'), { recursive: true });
    await writeFile(
      join(dir, 'pagejson.json'),
      JSON.stringify({ fetch: { allowPrivateNetworks: true }, credits: { enabled: true, freeCredits: 1_000_000_000 } }),
    );
    for (const config of [
      listingConfig('cached', sourceUrl, { caching: true }),
      listingConfig('uncached', sourceUrl, { caching: false }),
    ]) {
      await writeFile(join(dir, 'configs', `${config.apiId as string}.json`), JSON.stringify(config, null, 2));
    }
    const created = spawnSync(process.execPath, [build.cli, 'keys', 'create', '--json'], { cwd: dir, encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`build ${build.name}: keys create failed: ${created.stderr}`);
    build.key = (JSON.parse(created.stdout) as { key: string }).key;
    const nodeArgs = build.name === 'B' ? values['b-node-args'].split(' ').filter(Boolean) : [];
    build.daemon = await startUntil(
      SERVER_CPU,
      process.execPath,
      [...nodeArgs, build.cli, 'serve', '--port', '0', '--no-watch'],
      /serving \d+ config\(s\) at (http:\/\/[^ ]+)/,
      { cwd: dir, env: { PAGEJSON_LOG_LEVEL: 'warn', NO_COLOR: '1' } },
    );
    started.push(build.daemon);
    build.url = `${build.daemon.match[1]!}/external/${path}`;
  }
  process.stdout.write(
    `compare: ${path} GET, ${connections} connections, ${rounds} turns each of ${seconds} s after a ${values.warmup} s warm-up${values.together ? ', both builds at once' : ''}\n`,
  );
  for (const build of builds)
    await runLoad({ url: build.url!, headers: { apikey: build.key! }, connections, seconds: Number(values.warmup), cpu: LOAD_CPU });
  if (values.together) return together();

  for (let round = 0; round < rounds; round += 1) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const pid = build.daemon!.child.pid!;
      const before = threadSeconds(pid);
      const load = await runLoad({ url: build.url!, headers: { apikey: build.key! }, connections, seconds, cpu: LOAD_CPU, serverPid: pid });
      const after = threadSeconds(pid);
      const answered = load.requestsPerSecond * seconds;
      const micros = (tid: string) => ((after.get(tid)! - (before.get(tid) ?? 0)) * 1e6) / answered;
      const otherIds = [...after.keys()].filter((tid) => tid !== String(pid));
      const others = otherIds.map(micros);
      const busiest = Math.max(0, ...others);
      const rest = others.reduce((sum, value) => sum + value, 0) - busiest;
      // The rest thread by thread, largest first (Node 20 names them all "node": V8's GC and compiler helpers,
      // libuv's pool for fs calls such as the journal's fdatasync).
      const restEach = others
        .filter((us) => us >= 1)
        .sort((x, y) => y - x)
        .slice(1)
        .map((us) => us.toFixed(0))
        .join(' ');
      build.perRequest.push(load.serverCpuMicrosPerRequest ?? NaN);
      process.stdout.write(
        `${build.name}  ${load.requestsPerSecond.toFixed(0).padStart(6)} req/s  ${(load.serverCpuMicrosPerRequest ?? NaN).toFixed(1).padStart(7)} µs CPU per request` +
          `  (main ${micros(String(pid)).toFixed(0)}, busiest other thread ${busiest.toFixed(0)}, the rest ${rest.toFixed(0)}: ${restEach})  non-2xx ${load.non2xx}\n`,
      );
    }
  }
  const [a, b] = builds.map((build) => median(build.perRequest));
  process.stdout.write(`\nmedian CPU per request: A ${a!.toFixed(1)} µs, B ${b!.toFixed(1)} µs, B/A ${(b! / a!).toFixed(3)}\n`);
}

/**
 * Both builds at once, in every turn: each daemon takes half the connections, both on the same core, so at
 * any moment they meet the same neighbours. Turns of one build after the other read a change of a few percent
 * as noise on this VM (one build's CPU per request moved by ±15% from turn to turn); the ratio of two daemons
 * measured over the same seconds moves far less. The figure is the median of the turns' ratios.
 */
async function together(): Promise<void> {
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const loads = await Promise.all(
      builds.map((build) =>
        runLoad({
          url: build.url!,
          headers: { apikey: build.key! },
          connections: Math.max(1, Math.round(connections / 2)),
          seconds,
          cpu: LOAD_CPU,
          serverPid: build.daemon!.child.pid!,
        }),
      ),
    );
    loads.forEach((load, index) => builds[index]!.perRequest.push(load.serverCpuMicrosPerRequest ?? NaN));
    const ratio = builds[1]!.perRequest.at(-1)! / builds[0]!.perRequest.at(-1)!;
    ratios.push(ratio);
    const describe = (index: number) =>
      `${builds[index]!.name} ${loads[index]!.requestsPerSecond.toFixed(0).padStart(6)} req/s ${builds[index]!.perRequest.at(-1)!.toFixed(1).padStart(6)} µs (non-2xx ${loads[index]!.non2xx})`;
    process.stdout.write(`turn ${String(round + 1).padStart(2)}  ${describe(0)}  ${describe(1)}  B/A ${ratio.toFixed(3)}\n`);
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  process.stdout.write(
    `\nmedian CPU per request: A ${median(builds[0]!.perRequest).toFixed(1)} µs, B ${median(builds[1]!.perRequest).toFixed(1)} µs; median of the turns' B/A ${median(ratios).toFixed(3)} (range ${sorted[0]!.toFixed(3)}–${sorted.at(-1)!.toFixed(3)})\n`,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)]! + sorted[Math.ceil(middle)]!) / 2;
}

try {
  await main();
} finally {
  await Promise.allSettled(started.map((s) => s.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
}
