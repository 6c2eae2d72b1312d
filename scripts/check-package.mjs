#!/usr/bin/env node
// The package a user installs, checked as a user gets it: `.ci/run` runs this right after `npm ci`. The install
// lines are the README's "Installing" block, run as written (scripts/lib/readme-install.mjs):
//   1. `npm pack` in the checkout (its prepack cleans dist/ and builds it), then the tarball's file list: the
//      built CLI, daemon and dashboard, the native parts' sources; no tests, bench, demo, sources or local builds;
//   2. the README's `npm install -g` of the tarball, into an empty prefix, with the machine's Node;
//   3. that `pagejson` in a temp project: --version, init --yes, generate on a local fixture page (the bundled
//      example shop, on 127.0.0.1) with the heuristic model, run, keys create, serve answering GET /external
//      with the key, the dashboard's sign-in page, and a clean stop;
//   4. the README's install from a checkout (a global link to it), whose `pagejson --version` answers.
// No step may print a warning of npm or of Node. Exit 0 when all passed, 1 otherwise, the failure named with
// its step and the output that says why.
//
//   node scripts/check-package.mjs
//
// PAGEJSON_SMOKE_KEEP=1  keep the temp folder (its path is printed)
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeInstall } from './lib/readme-install.mjs';
import {
  allowLocalFetch,
  cleanEnv,
  describeExit,
  firstArray,
  json,
  KEEP,
  mustRun,
  refuseWarnings,
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
} from './lib/steps.mjs';

const API_ID = 'books';
/** The README's install lines (scripts/lib/readme-install.mjs): what this check runs, as written. */
const README_INSTALL = readmeInstall(ROOT);
/** Tarballs `npm pack` wrote into the checkout, removed at the end. */
const tarballs = new Set();
/** What the package must hold: the CLI's entry, the daemon, the dashboard, the native parts and their build. */
const REQUIRED = [
  'package.json',
  'npm-shrinkwrap.json',
  'README.md',
  'bin/pagejson.js',
  'dist/src/cli/main.js',
  'dist/src/daemon/server.js',
  'dist/dashboard/index.html',
  'dist/dashboard/login.html',
  'configs/pagejson.config.schema.json',
  'configs/pagejson.project.schema.json',
  'native/reexec/reexec.c',
  'native/malloc-trim/malloc_trim.c',
  'scripts/build-native.mjs',
];
/** What it must not: tests, bench and demo (built or not), TypeScript sources, source maps, local builds and state. */
const FORBIDDEN = [
  /^test\//,
  /^bench\//,
  /^demo\//,
  /^dist\/(test|bench|demo)\//,
  /^src\//,
  /\.ts$/,
  /\.map$/,
  /^native\/[^/]+\/build\//,
  /^node_modules\//,
  /^\.(ci|git|pagejson)\//,
  /^(docs|storage|test-results|coverage|scratch)\//,
];

/** A README line run as written, with bash, in the checkout; its output may not warn. */
async function readmeLine(what, line, { env, timeoutMs }) {
  const result = await mustRun(what, 'bash', ['-c', line], { cwd: ROOT, env, timeoutMs });
  refuseWarnings(what, `${result.stdout}\n${result.stderr}`);
  return result;
}

/** The README's `npm pack`, in the checkout (its prepack builds dist/). Returns the tarball's path. */
async function pack() {
  const env = cleanEnv({ CI: 'true' });
  let result;
  for (const line of README_INSTALL.pack) result = await readmeLine(line, line, { env, timeoutMs: 10 * 60_000 });
  const name = result.stdout.trim().split('\n').at(-1);
  if (!/^pagejson-.*\.tgz$/.test(name) || !existsSync(join(ROOT, name)))
    throw new StepError(`npm pack printed no tarball name`, tail(result.stdout));
  tarballs.add(join(ROOT, name));
  return join(ROOT, name);
}

/** The tarball's files, without npm's leading `package/`. */
async function fileList(tarball) {
  const { stdout } = await mustRun('listing the tarball', 'tar', ['-tzf', tarball]);
  return stdout
    .split('\n')
    .filter((line) => line && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));
}

function checkFileList(files) {
  const missing = REQUIRED.filter((file) => !files.includes(file));
  const unwanted = files.filter((file) => FORBIDDEN.some((pattern) => pattern.test(file)));
  if (missing.length > 0 || unwanted.length > 0) {
    throw new StepError(
      `the package ${missing.length > 0 ? `lacks ${missing.join(', ')}` : ''}${missing.length > 0 && unwanted.length > 0 ? ' and ' : ''}${unwanted.length > 0 ? `holds ${unwanted.length} file(s) it should not` : ''}`,
      unwanted.slice(0, 30).join('\n'),
    );
  }
  const assets = files.filter((file) => file.startsWith('dist/dashboard/assets/'));
  if (assets.length === 0) throw new StepError('the package holds no dashboard assets (dist/dashboard/assets/)');
  return `${files.length} files: bin/, dist/src/ (CLI and daemon), dist/dashboard/ (${assets.length} assets), configs/ schemas, native sources; no tests, bench, demo or sources`;
}

/**
 * A README line installing globally, run as written with npm's global prefix pointed at an empty folder
 * (NPM_CONFIG_PREFIX), so that nothing lands in the machine's own. Dependencies come from the registry (or
 * npm's cache) at the versions of the package's npm-shrinkwrap.json. Returns the `pagejson` it installed.
 */
async function installGlobally(line, prefix) {
  const env = cleanEnv({
    CI: 'true',
    NPM_CONFIG_PREFIX: prefix,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  });
  const result = await readmeLine(line, line, { env, timeoutMs: 15 * 60_000 });
  const bin = join(prefix, 'bin', 'pagejson');
  if (!existsSync(bin)) throw new StepError(`${line} made no ${bin}`, tail(result.stdout));
  return bin;
}

async function usePackage({ bin, work, children }) {
  const project = join(work, 'project');
  await mkdir(project);
  // The installed bin is what a user types: `pagejson`, found on PATH.
  const env = cleanEnv({ NO_COLOR: '1', CI: 'true', PAGEJSON_LOG_FORMAT: 'json', PATH: `${join(bin, '..')}:${process.env.PATH ?? ''}` });
  const cli = async (args, timeoutMs = 60_000) => {
    const result = await run('pagejson', args, { cwd: project, env, timeoutMs });
    if (result.code !== 0)
      throw new StepError(`pagejson ${args.join(' ')} ${describeExit(result, timeoutMs)}`, tail(`${result.stdout}\n${result.stderr}`));
    refuseWarnings(`pagejson ${args[0]}`, result.stderr);
    return result;
  };
  const state = {};

  await step('pagejson --version', async () => {
    const { stdout } = await cli(['--version']);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    if (stdout.trim() !== version) throw new StepError(`pagejson --version printed "${stdout.trim()}", not ${version}`);
    return `${version}, from ${bin}`;
  });

  await step('example shop', async () => {
    // The fixture site of the tests, from this checkout (the package has no tests): the page to generate from.
    state.origin = await startExampleShop({ node: process.execPath, tree: ROOT, cwd: ROOT, env, children });
    return `${state.origin}/listing.html`;
  });

  await step('init --yes', async () => {
    await cli(['init', '--yes']);
    await allowLocalFetch(project);
    return 'pagejson.json, configs/ with the schemas from the package';
  });

  await step('generate', async () => {
    const url = `${state.origin}/listing.html`;
    const { stdout } = await cli([
      'generate',
      url,
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
    return `configs/${API_ID}.json with ${generated.structure.map((field) => field.name).join(', ')}`;
  });

  await step(`run ${API_ID}`, async () => {
    const items = firstArray(json((await cli(['run', API_ID, '--json'])).stdout, 'run --json').data);
    if (!items || items.length === 0) throw new StepError('run extracted no items');
    state.items = items.length;
    return `${items.length} items`;
  });

  await step('keys create', async () => {
    const created = json((await cli(['keys', 'create', '--label', 'package', '--json'])).stdout, 'keys create --json');
    if (typeof created.key !== 'string') throw new StepError('keys create printed no key');
    state.key = created.key;
    return created.id;
  });

  const daemon = startWatched('pagejson', ['serve', '--port', '0'], { cwd: project, env });
  children.push(daemon);
  await step('serve, GET /external', async () => {
    const url = (await daemon.waitFor(/^pagejson serving .* at (http:\/\/[^\s]+) /m, 30_000, 'pagejson serve'))[1];
    const response = await fetch(`${url}/external/${API_ID}`, { headers: { apikey: state.key }, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    if (response.status !== 200) throw new StepError(`GET /external/${API_ID} answered ${response.status}`, tail(text));
    const items = firstArray(json(text, 'the answer').data);
    if (items?.length !== state.items)
      throw new StepError(`GET /external/${API_ID} answered ${items?.length} items, run gave ${state.items}`);
    const page = await fetch(`${url}/ui/login`, { signal: AbortSignal.timeout(10_000) });
    const html = await page.text();
    if (page.status !== 200 || !/<script[^>]+assets\//.test(html))
      throw new StepError(`GET /ui/login answered ${page.status} without the dashboard's script`, tail(html));
    return `${url}: 200 with ${items.length} items; /ui/login served from the package's dist/dashboard`;
  });

  await step('stop (SIGTERM)', async () => {
    const exited = await daemon.stop('SIGTERM', 20_000);
    if (exited?.code !== 0)
      throw new StepError(
        `the daemon exited with ${exited ? (exited.signal ?? exited.code) : 'nothing in 20 s'}, not 0`,
        tail(daemon.output.stderr),
      );
    refuseWarnings('pagejson serve', daemon.output.stderr);
    return 'exit 0, no warning on stderr';
  });
}

async function main() {
  const started = Date.now();
  say(`pagejson package check (Node ${process.version})`);
  const work = await mkdtemp(join(tmpdir(), 'pagejson-package-'));
  workDirs.add(work);
  const children = [];
  let ok = false;
  try {
    let tarball;
    await step(README_INSTALL.pack.join(' && '), async () => {
      tarball = await pack();
      return tarball;
    });
    await step('file list', async () => checkFileList(await fileList(tarball)));
    let bin;
    await step(README_INSTALL.tarball[0], async () => {
      const prefix = join(work, 'prefix');
      await mkdir(prefix);
      bin = await installGlobally(README_INSTALL.tarball[0], prefix);
      return `into an empty prefix: ${bin}`;
    });
    await usePackage({ bin, work, children });
    // From a checkout: the README's build step has just been done by npm pack's prepack, so its global
    // install of `.` is what is left to run; the linked `pagejson` must answer.
    const checkout = README_INSTALL.checkout.at(-1);
    await step(checkout, async () => {
      const prefix = join(work, 'link-prefix');
      await mkdir(prefix);
      const linked = await installGlobally(checkout, prefix);
      const { stdout } = await mustRun(`${linked} --version`, linked, ['--version'], { env: cleanEnv({ NO_COLOR: '1' }) });
      return `${linked} → this checkout, version ${stdout.trim()}`;
    });
    ok = true;
  } catch {
    // step() has said what failed and why.
  } finally {
    for (const child of children.reverse()) await child.stop('SIGTERM', 5_000);
    for (const file of tarballs) await rm(file, { force: true });
    if (KEEP) say(`   kept ${work}`);
    else await rm(work, { recursive: true, force: true });
    workDirs.delete(work);
  }
  say(`package check: ${ok ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)}`);
  process.exit(ok ? 0 : 1);
}

await main();
