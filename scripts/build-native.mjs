// Builds pagejson's one native part, the allocator trimmer (native/malloc-trim), at `npm install` / `npm ci`.
// It is optional: where it cannot be built (no compiler, no Node headers, not Linux) the install goes on and
// the daemon runs without it, keeping what glibc holds (docs/performance.md, "Memory").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const addonDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'malloc-trim');

/** npm names its own node-gyp to install scripts; else the one beside npm, else one on PATH. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp, join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')];
  const script = candidates.find((file) => file && existsSync(file));
  return script ? [process.execPath, [script]] : ['node-gyp', []];
}

if (process.platform !== 'linux') {
  process.stdout.write('pagejson: the allocator trimmer is for Linux (glibc) only; not built\n');
  process.exit(0);
}
const [command, prefix] = nodeGyp();
// Run outside npm, node-gyp would download Node's headers (no network here): the installed ones are used.
const installed = [join(dirname(process.execPath), '..'), process.config.variables.node_prefix].find((prefix) => prefix && existsSync(join(prefix, 'include', 'node', 'node_api.h')));
const headers = !process.env.npm_config_nodedir && installed ? [`--nodedir=${installed}`] : [];
const result = spawnSync(command, [...prefix, 'rebuild', '--loglevel=error', ...headers], { cwd: addonDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
if (result.status !== 0) {
  process.stdout.write(`${result.stderr ?? ''}`.split('\n').slice(-12).join('\n'));
  process.stdout.write(`pagejson: the allocator trimmer (native/malloc-trim) was not built (${result.error?.message ?? `node-gyp exited with ${result.status}`}); the daemon runs without it\n`);
}
process.exit(0);
