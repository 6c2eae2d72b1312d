import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProject } from '../src/core/config/project.js';
import { writeConfigFile } from '../src/core/config/write.js';
import { generateConfig } from '../src/core/generation/generate.js';
import { createModelResolver } from '../src/core/models/index.js';
import { createScraperPool, scraperOptionsFromSettings } from '../src/core/fetch/scrapers/index.js';
import { openLocalStateClient } from '../src/cli/state-client.js';
import { startServer } from '../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../test/support/site.js';

/**
 * `npm run demo`: the whole product on a machine with no network. Starts the bundled example site, makes a
 * project in a temp folder, generates an endpoint from the listing page with the offline heuristic model,
 * creates a key, starts the daemon, calls the endpoint, and prints the answer and the curl command to call it
 * again. Keeps serving until Ctrl-C; PAGEJSON_DEMO_ONCE=1 exits after printing (the test uses it).
 */
const PREFERRED_SITE_PORT = 4173;
const API_ID = 'books';

async function startSite(): Promise<FixtureSite> {
  try {
    return await startFixtureSite({ port: PREFERRED_SITE_PORT });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return startFixtureSite({ port: 0 });
  }
}

/**
 * The command that asks the demo's daemon for another sign-in link, as it works from here: the CLI of this
 * checkout (`pagejson` is on PATH only after `npm link`), the demo's project named (it is in a temp folder).
 */
function dashboardCommand(project: string): string {
  const bin = fileURLToPath(new URL('../../bin/pagejson.js', import.meta.url));
  const fromHere = relative(process.cwd(), bin);
  return `node ${fromHere.startsWith('..') || isAbsolute(fromHere) ? bin : fromHere} dashboard --project ${project}`;
}

async function main(): Promise<void> {
  const once = process.env.PAGEJSON_DEMO_ONCE === '1';
  const root = await mkdtemp(join(tmpdir(), 'pagejson-demo-'));
  const site = await startSite();
  const cleanups: Array<() => Promise<unknown>> = [() => site.close(), () => rm(root, { recursive: true, force: true })];
  const cleanUp = async (): Promise<void> => {
    for (const step of cleanups.splice(0).reverse()) await step().catch(() => undefined);
  };

  try {
    console.log(`example site  ${site.url} (listing: ${site.origin}/listing.html)`);
    // What `pagejson init` writes, plus permission to fetch from this machine (the example site is local).
    await writeFile(join(root, 'pagejson.json'), `${JSON.stringify({ fetch: { allowPrivateNetworks: true } }, null, 2)}\n`);
    await mkdir(join(root, 'configs'));
    const env = { ...process.env, PAGEJSON_DATA_DIR: '' };
    const project = await loadProject({ cwd: root, env });
    console.log(`project       ${root}`);

    const pool = createScraperPool(scraperOptionsFromSettings(project.settings.fetch, env));
    const models = createModelResolver({ models: project.settings.models, env });
    const generated = await generateConfig(
      {
        url: `${site.origin}/listing.html`,
        apiId: API_ID,
        scraper: 1,
        session: false,
        model: 'heuristic',
        selector: 'body',
        rule: 'books with their prices',
        caching: true,
        vars: [],
      },
      { scraperFor: (n) => pool.get(n), modelFor: (name) => models.get(name) },
    ).finally(() => pool.close());
    const file = join(project.configsDir, `${API_ID}.json`);
    await writeConfigFile(file, generated.config);
    console.log(`generated     ${file} (${generated.config.structure.length} top-level fields, heuristic model)`);

    const state = await openLocalStateClient(project);
    const created = await state.createKey({ label: 'demo' }).finally(() => state.close());

    const server = await startServer({ project, host: '127.0.0.1', port: 0, watch: false, env, app: { logger: false } });
    cleanups.push(() => server.close());
    const endpoint = `${server.url}/external/${API_ID}`;
    const response = await fetch(endpoint, { headers: { apikey: created.key } });
    const body = (await response.json()) as unknown;
    console.log(`daemon        ${server.url}`);
    console.log('');
    console.log(`GET ${endpoint} → ${response.status}`);
    console.log(JSON.stringify(body, null, 2));
    console.log('');
    console.log('call it again:');
    console.log(`  curl -s -H 'apikey: ${created.key}' ${endpoint}`);
    const dashboard = server.app.dashboardLoginLink();
    if (dashboard) {
      console.log('');
      console.log(`the dashboard (a one-time sign-in link; \`${dashboardCommand(root)}\` makes new ones while the demo runs):`);
      console.log(`  ${dashboard.url}`);
    }
    if (response.status !== 200) process.exitCode = 1;

    if (once) return;
    console.log('');
    console.log('serving until Ctrl-C');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  } finally {
    await cleanUp();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && 'hint' in error && error.hint) console.error(`hint: ${String(error.hint)}`);
    process.exit(1);
  },
);
