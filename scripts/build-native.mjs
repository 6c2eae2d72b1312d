// Builds pagejson's native parts at `npm install` / `npm ci`: the allocator trimmer (native/malloc-trim) and,
// on a Node without process.execve, the re-exec that gives the daemon its V8 flags (native/reexec). Both are
// optional: where they cannot be built (no compiler, no Node headers, not Linux) the install goes on and the
// daemon runs without them, keeping what glibc holds and V8's own young generation (docs/performance.md,
// "Memory").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const nativeDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'native');
// The re-exec only where Node lacks its own process.execve (Node 20, 22 before 22.15): the daemon uses Node's
// where it has it (src/cli/daemon-flags.ts), so the addon is not built there.
const ADDONS = [
  { dir: 'malloc-trim', what: 'the allocator trimmer', without: 'the daemon runs without it, keeping what glibc holds' },
  ...(typeof process.execve === 'function'
    ? []
    : [{ dir: 'reexec', what: 'the daemon re-exec', without: "the daemon runs with V8's own young generation" }]),
];

/** npm names its own node-gyp to install scripts; else the one beside npm, else one on PATH. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  const script = candidates.find((file) => file && existsSync(file));
  return script ? [process.execPath, [script]] : ['node-gyp', []];
}

if (process.platform !== 'linux') {
  process.stdout.write('pagejson: the native parts (allocator trimmer, daemon re-exec) are for Linux only; not built\n');
  process.exit(0);
}
const [command, prefix] = nodeGyp();
// Run outside npm, node-gyp would download Node's headers (no network here): the installed ones are used.
const installed = [join(dirname(process.execPath), '..'), process.config.variables.node_prefix].find(
  (prefix) => prefix && existsSync(join(prefix, 'include', 'node', 'node_api.h')),
);
const headers = !process.env.npm_config_nodedir && installed ? [`--nodedir=${installed}`] : [];
for (const addon of ADDONS) {
  const result = spawnSync(command, [...prefix, 'rebuild', '--loglevel=error', ...headers], {
    cwd: join(nativeDir, addon.dir),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.status !== 0) {
    process.stdout.write(`${result.stderr ?? ''}`.split('\n').slice(-12).join('\n'));
    process.stdout.write(
      `pagejson: ${addon.what} (native/${addon.dir}) was not built (${result.error?.message ?? `node-gyp exited with ${result.status}`}); ${addon.without}\n`,
    );
  }
}
process.exit(0);
