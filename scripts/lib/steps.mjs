// What the CI scripts (smoke-node.mjs, check-package.mjs) share: steps that print their time and why they
// failed, children in process groups of their own (killed with this process), and the checks of what npm and
// Node print (no warning of either is allowed in CI).
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const KEEP = process.env.PAGEJSON_SMOKE_KEEP === '1';

export class StepError extends Error {
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

// ---------------------------------------------------------------- output

export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
export const say = (line = '') => process.stdout.write(`${line}\n`);
export const indent = (text, prefix = '       | ') =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
/** The last lines of a command's output: enough to say why it failed. */
export const tail = (text, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

export async function step(name, fn) {
  const started = Date.now();
  try {
    const note = await fn();
    say(`  ok    ${name.padEnd(22)} ${seconds(Date.now() - started).padStart(7)}${note ? `  ${note}` : ''}`);
    return note;
  } catch (error) {
    say(`  FAIL  ${name.padEnd(22)} ${seconds(Date.now() - started).padStart(7)}  ${error.message}`);
    if (error.detail) say(indent(error.detail));
    if (!(error instanceof StepError) && error.stack) say(indent(error.stack));
    throw Object.assign(error, { step: name });
  }
}

// ---------------------------------------------------------------- processes

/** Children run in process groups of their own (so a timeout kills npm's whole tree); stopped with this one. */
export const live = new Set();
/** Temp folders in use, removed on Ctrl-C too (unless PAGEJSON_SMOKE_KEEP=1). */
export const workDirs = new Set();
export function track(child) {
  live.add(child);
  child.on('exit', () => live.delete(child));
  child.on('error', () => live.delete(child));
  return child;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of live) killGroup(child);
    if (!KEEP) for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
}

/** Runs a command to its end (its whole process group is killed at the timeout); never rejects on exit codes. */
export function run(command, args, { cwd = ROOT, env = process.env, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve) => {
    const child = track(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}\n`, timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

export function killGroup(child, signal = 'SIGKILL') {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export const describeExit = (result, timeoutMs) =>
  result.timedOut
    ? `did not finish in ${seconds(timeoutMs)}`
    : result.signal
      ? `was killed by ${result.signal}`
      : `exited with ${result.code}`;

/** Runs a command that must exit 0; the failure carries its output. */
export async function mustRun(what, command, args, options = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new StepError(`${what} ${describeExit(result, options.timeoutMs ?? 60_000)}`, tail(`${result.stdout}\n${result.stderr}`));
  }
  return result;
}

/** A long-running child whose stdout lines are watched (the fixture site, the daemon). */
export function startWatched(command, args, { cwd, env }) {
  const child = track(spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
  const output = { stdout: '', stderr: '', exited: undefined };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise((resolve) => {
    child.on('error', (error) => {
      output.stderr += `${error.message}\n`;
      output.exited = { code: null, signal: null };
      resolve(output.exited);
    });
    child.on('exit', (code, signal) => {
      output.exited = { code, signal };
      resolve(output.exited);
    });
  });
  /** Resolves with the first match of `pattern` in stdout; rejects if the child exits or time runs out. */
  const waitFor = (pattern, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const look = () => {
        const match = pattern.exec(output.stdout);
        if (match) return resolve(match);
        const why = output.exited
          ? `exited (${output.exited.signal ?? `code ${output.exited.code}`})`
          : Date.now() - started > timeoutMs
            ? `printed nothing like it in ${seconds(timeoutMs)}`
            : undefined;
        if (why) return reject(new StepError(`${what}: ${why}`, tail(`${output.stdout}\n${output.stderr}`)));
        setTimeout(look, 50);
      };
      look();
    });
  const stop = async (signal = 'SIGTERM', timeoutMs = 20_000) => {
    if (output.exited) return output.exited;
    try {
      process.kill(child.pid, signal);
    } catch {
      // already gone
    }
    const timer = new Promise((resolve) => setTimeout(() => resolve(undefined), timeoutMs));
    const result = await Promise.race([exited, timer]);
    if (!result) killGroup(child);
    return result;
  };
  return { child, output, waitFor, stop, exited };
}

/** npm's settings in CI, in place of the user's ~/.npmrc (.ci/npmrc says why). */
export const CI_NPMRC = join(ROOT, '.ci', 'npmrc');

/**
 * The environment of npm and of the CLI under test: nothing of an outer `npm run` or of the caller's pagejson,
 * and npm reads .ci/npmrc, not the user's npmrc.
 */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || name.startsWith('PAGEJSON_') || name === 'NODE_OPTIONS') continue;
    env[name] = value;
  }
  return { ...env, npm_config_userconfig: CI_NPMRC, ...extra };
}

/** The machine's npm, run as a script so that another Node can run it. */
export function npmCli() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, 'npm');
    try {
      accessSync(file, constants.X_OK);
    } catch {
      continue;
    }
    const real = realpathSync(file);
    if (real.endsWith('.js')) return real;
    const beside = join(dirname(real), 'npm-cli.js');
    if (existsSync(beside)) return beside;
  }
  throw new StepError('npm-cli.js not found: the machine has no npm on PATH, or not one installed as a script');
}

// ---------------------------------------------------------------- what commands print

export function json(text, what) {
  try {
    return JSON.parse(text);
  } catch {
    throw new StepError(`${what} is not JSON`, tail(text));
  }
}

/** The first array found in the data, depth first: the endpoint's list of items. */
export function firstArray(value) {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) {
      const found = firstArray(inner);
      if (found) return found;
    }
  }
  return undefined;
}

/** The warnings npm printed (`npm warn` lines), none allowed. */
export function npmWarnings(text) {
  return text
    .split('\n')
    .filter((line) => /^npm warn/i.test(line))
    .map((line) => line.trim());
}

/** What Node prints when it warns: `(node:PID) [DEP0040] DeprecationWarning: …`, ExperimentalWarning and the like. */
export function nodeWarnings(text) {
  return text
    .split('\n')
    .filter((line) => /^\(node:\d+\) /.test(line))
    .map((line) => line.trim());
}

/** Fails the step when npm or Node warned in `text` (what `what` printed). */
export function refuseWarnings(what, text) {
  const warnings = [...npmWarnings(text), ...nodeWarnings(text)];
  if (warnings.length > 0) throw new StepError(`${what} printed ${warnings.length} warning(s), none is allowed`, warnings.join('\n'));
}

// ---------------------------------------------------------------- the example shop and a temp project

/**
 * Starts the example shop of the tests and the demo (`<tree>/dist/test/support/site.js`, built) with `node`, on
 * a free port; the child is added to `children`. Resolves with its origin.
 */
export async function startExampleShop({ node, tree, cwd, env, children }) {
  const siteModule = join(tree, 'dist', 'test', 'support', 'site.js');
  if (!existsSync(siteModule)) throw new StepError(`${siteModule} is missing: build first (npm run build)`);
  const script = `const { startFixtureSite } = await import(${JSON.stringify(pathToFileURL(siteModule).href)}); const site = await startFixtureSite({ port: 0 }); console.log('site ' + site.origin);`;
  const site = startWatched(node, ['--input-type=module', '-e', script], { cwd, env });
  children.push(site);
  return (await site.waitFor(/^site (http:\/\/\S+)$/m, 15_000, 'the example shop'))[1];
}

/**
 * After `pagejson init`: the example shop is on loopback, so fetching it must be allowed; /metrics on a free
 * port, not 9464 (other daemons may be running).
 */
export async function allowLocalFetch(project) {
  const file = join(project, 'pagejson.json');
  if (!existsSync(file) || !existsSync(join(project, 'configs', 'pagejson.config.schema.json')))
    throw new StepError('init --yes made no pagejson.json or no configs/ schemas');
  const settings = json(await readFile(file, 'utf8'), 'pagejson.json');
  settings.fetch = { ...settings.fetch, allowPrivateNetworks: true };
  settings.metrics = { ...settings.metrics, listen: '127.0.0.1:0' };
  await writeFile(file, `${JSON.stringify(settings, null, 2)}\n`);
}
