import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScraperBrowser } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH } from './chromium.js';

/**
 * Browsers elsewhere, started on loopback for the scraper-3 tests that run both ways (issue 51): a Playwright
 * server (`chromium.launchServer`, as `npx playwright launch-server`) and a Chromium with
 * `--remote-debugging-port=0` (a CDP endpoint, as a Chrome container would offer).
 */
export type BrowserMode = 'local' | 'playwright' | 'cdp';
export const BROWSER_MODES: BrowserMode[] = ['local', 'playwright', 'cdp'];

// Started as docs/security.md ("A remote browser") asks of a fleet: with the renderer heap cap pagejson gives
// the Chromium it launches, which a remote browser can only have from its own launch.
const ARGS = [
  '--js-flags=--max-old-space-size=512',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface RemoteBrowserServer {
  mode: Exclude<BrowserMode, 'local'>;
  /** The URL pagejson is given (`browser.connect`). */
  url: string;
  /** The browser's process id: killing it is a lost connection. */
  pid: number | undefined;
  close(): Promise<void>;
}

export async function startPlaywrightServer(options: { wsPath?: string; port?: number } = {}): Promise<RemoteBrowserServer> {
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    args: ARGS,
    host: '127.0.0.1',
    port: options.port ?? 0,
    ...(options.wsPath ? { wsPath: options.wsPath } : {}),
  });
  return { mode: 'playwright', url: server.wsEndpoint(), pid: server.process().pid, close: () => server.close() };
}

export async function startCdpChromium(): Promise<RemoteBrowserServer> {
  const profile = await mkdtemp(join(tmpdir(), 'pagejson-cdp-'));
  const child = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      ...ARGS,
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /DevTools listening on ws:\/\/([^/\s]+)\//.exec(seen);
      if (match) resolve(`http://${match[1]}`);
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${code}) before it listened: ${seen.slice(0, 500)}`)));
  });
  return {
    mode: 'cdp',
    url,
    pid: child.pid,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export function startRemoteBrowser(mode: Exclude<BrowserMode, 'local'>): Promise<RemoteBrowserServer> {
  return mode === 'playwright' ? startPlaywrightServer() : startCdpChromium();
}

/** ScraperOptions.browser for a server (or the local launch without one). */
export function browserOption(server: RemoteBrowserServer | undefined, maxSessions = 3): ScraperBrowser {
  return server ? { maxSessions, remote: { url: server.url, kind: server.mode, headers: {} } } : { maxSessions };
}

/** A loopback port nothing listens on (just freed). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Pages open in a CDP endpoint's browser, every context's (its `/json/list`), the blank one it started with aside. */
export async function cdpPages(url: string): Promise<string[]> {
  const { request } = await import('undici');
  const answer = await request(`${url}/json/list`);
  const targets = (await answer.body.json()) as Array<{ type: string; url: string }>;
  return targets.filter((target) => target.type === 'page' && target.url !== 'about:blank').map((target) => target.url);
}

/** The ways the scraper-3 tests run both ways: launched here, and through a Playwright server (issue 51). */
export type Scraper3Mode = 'local' | 'playwright';
export const SCRAPER3_MODES: Scraper3Mode[] = ['local', 'playwright'];

let shared: Promise<RemoteBrowserServer> | undefined;

/**
 * One Playwright server for a whole test file (vitest isolates each file's modules), started by the first
 * describe that needs it; the file closes it in a top-level afterAll (closeSharedPlaywrightServer).
 */
export function sharedPlaywrightServer(): Promise<RemoteBrowserServer> {
  shared ??= startPlaywrightServer();
  return shared;
}

export async function closeSharedPlaywrightServer(): Promise<void> {
  const server = shared;
  shared = undefined;
  await (await server?.catch(() => undefined))?.close();
}

/** ScraperOptions.browser for a mode: absent for the local launch (the scraper's default), else the shared server's. */
export async function browserFor(mode: Scraper3Mode, maxSessions = 3): Promise<{ browser?: ScraperBrowser }> {
  return mode === 'local' ? {} : { browser: browserOption(await sharedPlaywrightServer(), maxSessions) };
}
