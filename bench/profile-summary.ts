import { readFileSync } from 'node:fs';

/**
 * Prints the top self-time entries of a V8 `.cpuprofile` (from `--cpu-prof`) as shares of the busy time:
 * `node dist/bench/profile-summary.js <file.cpuprofile> [top]`. Idle time is left out so shares add up to what
 * the process did.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary <file.cpuprofile> [top]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTime = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, index) => {
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(idle)') return;
  const delta = profile.timeDeltas[index] ?? 0;
  busy += delta;
  const where = frame.url
    ? `${frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${frame.lineNumber + 1}`
    : '';
  const label = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  selfTime.set(label, (selfTime.get(label) ?? 0) + delta);
});
const top = [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
process.stdout.write(`busy ${(busy / 1000).toFixed(0)} ms\n`);
for (const [label, time] of top) process.stdout.write(`${((100 * time) / busy).toFixed(1).padStart(5)}%  ${label}\n`);
