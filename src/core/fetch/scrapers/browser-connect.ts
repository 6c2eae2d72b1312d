import type { Browser } from 'playwright-core';
import { browserKindOf, browserUrlLabel, resolveSecretRecord, resolveSecrets, type BrowserKind } from '../../config/index.js';
import { PagejsonError } from '../../shared/index.js';
import { startGuardProxy } from './browser-guard-proxy.js';
import type { RunningBrowser } from './browser-launch.js';

/**
 * Scraper 3 on a browser elsewhere (`browser.connect` of pagejson.json, PAGEJSON_BROWSER_URL wins): a
 * Playwright server over its own protocol, or a Chrome DevTools endpoint. The browser is the fleet's: closing
 * it here only disconnects. pagejson's guard proxy still runs here, as pagejson sends every request of the
 * browser's pages itself (browser-remote-route.ts).
 */

const CONNECT_TIMEOUT_MS = 30_000;

/** Where scraper 3's browser is, as written: the URL and headers may hold `${NAME}`, resolved at connect. */
export interface RemoteBrowser {
  url: string;
  kind: BrowserKind;
  headers: Readonly<Record<string, string>>;
}

/** The remote browser the settings and the environment name, or undefined for a local launch. */
export function remoteBrowserOf(
  settings: { connect?: string | undefined; kind?: BrowserKind | undefined; headers?: Record<string, string> | undefined } | undefined,
  env: Readonly<Record<string, string | undefined>>,
): RemoteBrowser | undefined {
  const url = env.PAGEJSON_BROWSER_URL?.trim() || settings?.connect;
  if (!url) return undefined;
  return { url, kind: browserKindOf(url, settings?.kind), headers: settings?.headers ?? {} };
}

/** How scraper 3's browser is named in `status`, `/readyz` and errors: never with a token. */
export function remoteLabel(remote: RemoteBrowser): string {
  return `${remote.kind === 'cdp' ? 'CDP endpoint' : 'Playwright server'} ${browserUrlLabel(remote.url.replace(/\$\{[A-Z_][A-Z0-9_]*\}/g, 'x'))}`;
}

/** Playwright's first line, with every URL in it shown by its label (Playwright repeats the URL it was given). */
function reasonOf(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return first
    .replace(/^browserType\.connect(OverCDP)?:\s*/, '')
    .replace(/\b(wss?|https?):\/\/\S+/gi, (url) => browserUrlLabel(url))
    .slice(0, 300);
}

export function remoteUnreachableError(remote: RemoteBrowser, error: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `the ${remoteLabel(remote)} could not be reached: ${reasonOf(error)}`, {
    context: { browser: remoteLabel(remote) },
    hint: 'check browser.connect in pagejson.json (or PAGEJSON_BROWSER_URL), browser.kind, and that the browser service runs and lets this machine in (browser.headers for its token)',
  });
}

export function remoteLostError(remote: RemoteBrowser, cause?: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `the connection to the ${remoteLabel(remote)} was lost during the fetch`, {
    context: { browser: remoteLabel(remote) },
    cause,
    hint: 'the next fetch connects again; if this repeats, check the browser service (its logs, its limits on sessions and time)',
  });
}

export async function connectBrowser(
  remote: RemoteBrowser,
  env: Readonly<Record<string, string | undefined>>,
  allowPrivateNetworks: boolean,
): Promise<RunningBrowser> {
  // Resolved here, not at start: an unset variable fails the fetch that needs the browser, with its name.
  const url = resolveSecrets(remote.url, { ...env }, 'browser.connect');
  const headers = resolveSecretRecord(remote.headers, { ...env }, 'browser.headers');
  const { chromium } = await import('playwright-core');
  const proxy = await startGuardProxy(allowPrivateNetworks);
  let browser: Browser;
  try {
    const options = { headers: { ...headers }, timeout: CONNECT_TIMEOUT_MS };
    browser = remote.kind === 'cdp' ? await chromium.connectOverCDP(url, options) : await chromium.connect(url, options);
  } catch (error) {
    await proxy.close();
    throw remoteUnreachableError(remote, error);
  }
  browser.on('disconnected', () => void proxy.close());
  return {
    browser,
    proxy,
    remote,
    close: async () => {
      // Disconnects only: the contexts pagejson opened go with the connection, the fleet's browser stays.
      await browser.close().catch(() => undefined);
      await proxy.close();
    },
  };
}
