import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { PagejsonError } from '../../shared/index.js';
import { startGuardProxy, type GuardProxy } from './browser-guard-proxy.js';

/**
 * Scraper 3's browser: the system Chromium (never a downloaded one) started by Playwright, behind the guard
 * proxy, with the renderer limits of docs/security.md (its limits table).
 */

/** V8 heap cap of every renderer (`--js-flags`): a page past it crashes alone, the fetch fails with a typed error. */
export const RENDERER_HEAP_MB = 512;
const VERSION_CHECK_TIMEOUT_MS = 15_000;
const LAUNCH_TIMEOUT_MS = 60_000;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  `--js-flags=--max-old-space-size=${RENDERER_HEAP_MB}`,
];

export interface RunningBrowser {
  browser: Browser;
  proxy: GuardProxy;
  /** Set when the browser is elsewhere (browser-connect.ts): its pages are routed through pagejson. */
  remote?: { url: string; kind: 'playwright' | 'cdp' } | undefined;
  close(): Promise<void>;
}

export function browserUnavailableError(path: string, cause?: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `Chromium was not found at ${path}`, {
    context: { path },
    cause,
    hint: 'install it with `apt-get install chromium` or set PAGEJSON_CHROMIUM',
  });
}

function cannotStartError(chromiumPath: string, cause?: unknown): PagejsonError {
  return new PagejsonError('BROWSER_UNAVAILABLE', `Chromium at ${chromiumPath} could not be started`, {
    context: { path: chromiumPath },
    cause,
    hint: "check that it is Debian's chromium (`apt-get install chromium`), or point PAGEJSON_CHROMIUM at a working Chromium",
  });
}

/** The executable must exist and answer `--version`: a launch of something else would only time out. */
async function checkChromium(chromiumPath: string): Promise<void> {
  try {
    await access(chromiumPath, constants.X_OK);
  } catch (error) {
    throw browserUnavailableError(chromiumPath, error);
  }
  await new Promise<void>((resolve, reject) =>
    execFile(chromiumPath, ['--version'], { timeout: VERSION_CHECK_TIMEOUT_MS }, (error) =>
      error ? reject(cannotStartError(chromiumPath, error)) : resolve(),
    ),
  );
}

export async function launchBrowser(chromiumPath: string, allowPrivateNetworks: boolean): Promise<RunningBrowser> {
  await checkChromium(chromiumPath);
  const { chromium } = await import('playwright-core');
  const proxy = await startGuardProxy(allowPrivateNetworks);
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      // Playwright turns Chromium's popup blocker off; kept on, a page cannot open windows without a click.
      ignoreDefaultArgs: ['--disable-popup-blocking'],
      // All traffic, loopback included (Playwright's default), goes through the guard proxy, with its credential.
      proxy: { ...proxy.browserProxy },
      // The daemon and the CLI own the process's signals (Playwright would exit the process on SIGINT).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: LAUNCH_TIMEOUT_MS,
    });
  } catch (error) {
    await proxy.close();
    throw cannotStartError(chromiumPath, error);
  }
  // A browser that died (killed, crashed) takes its proxy with it; the scraper launches a new pair.
  browser.on('disconnected', () => void proxy.close());
  return {
    browser,
    proxy,
    close: async () => {
      await browser.close().catch(() => undefined);
      await proxy.close();
    },
  };
}
