import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createBrowserScraper } from '../../src/core/fetch/scrapers/browser.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { rendererProcesses } from '../support/chromium-renderers.js';
import { DOWNLOAD_STATE, POPUP_COUNT } from '../support/site-routes/browser-hostile.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { browserFor, closeSharedPlaywrightServer, SCRAPER3_MODES } from '../support/remote-browser.js';

/**
 * Scraper 3 against pages that attack the browser rendering them (issue 40, item 6), replayed in the real
 * system Chromium: three `noopener` popups spinning in `while (true) {}`, a download started by script,
 * and a page allocating 1.5 GB of JavaScript heap. Each fetch must leave nothing of the page running: its
 * context is closed with all it opened. Run both ways (issue 51): on a Chromium launched here and through a
 * Playwright server (started by this process, so its renderers are counted the same way).
 */
const skip = skipBrowserTests();

afterAll(closeSharedPlaywrightServer);

describe.skipIf(skip).each(SCRAPER3_MODES)('scraper 3 (browser, %s) against hostile pages', (mode) => {
  let site: FixtureSite;
  let scraper: Scraper;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = createBrowserScraper({
      ...(await browserFor(mode)),
      timeoutMs: 30_000,
      maxBytes: 1024 * 1024,
      allowPrivateNetworks: true,
      perOriginConcurrency: 4,
      chromiumPath: CHROMIUM_PATH,
    });
    // The browser is running before the attacks, so what is counted after each one is what the page left.
    expect((await scraper.fetch({ url: `${site.origin}/listing.html` })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await scraper?.close();
    await site?.close();
  });

  it('leaves no renderer of the spinning noopener popups behind once the fetch has answered', async () => {
    const before = new Set((await rendererProcesses()).map((renderer) => renderer.pid));
    site.resetHits();
    const result = await scraper.fetch({ url: `${site.origin}/browser-hostile/popups` });
    expect(result.status).toBe(200);
    expect(result.html).toContain(`opened ${POPUP_COUNT}`);
    // Every renderer that appeared for this fetch exits with it (a spinning one never would).
    // They exit after the fetch has answered, as processes of their own: wait (bounded) for that.
    await vi.waitFor(async () => expect((await rendererProcesses()).filter((renderer) => !before.has(renderer.pid))).toEqual([]), {
      timeout: 5_000,
      interval: 50,
    });
    // The popups never got to run their page, or were ended with the fetch: nothing spins now, not even in a
    // renderer that was there before. Kept on real time (docs/decisions.md, "Time in tests"): CPU used over a
    // window is the only sign of a page spinning in a shared renderer the test can read; the scraper gives
    // no CDP handle to list its targets, and ps cannot tell which pages a renderer hosts.
    const ticksBefore = new Map((await rendererProcesses()).map((renderer) => [renderer.pid, renderer.cpuTicks]));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const busy = (await rendererProcesses()).filter(
      (renderer) => renderer.cpuTicks - (ticksBefore.get(renderer.pid) ?? renderer.cpuTicks) > 10,
    );
    expect(busy).toEqual([]);
  });

  it('refuses a download the page starts by script, while the page is still open', async () => {
    site.state.delete(DOWNLOAD_STATE);
    const result = await scraper.fetch({ url: `${site.origin}/browser-hostile/download` });
    expect(result.status).toBe(200);
    // What the page saw while it was open: the browser hung up on the download (or never asked for it). An
    // accepted download would still be trickling in, until the fetch's context closed.
    expect(result.html).toMatch(/<p id="download">download (aborted|none)<\/p>/);
    expect(site.state.get(DOWNLOAD_STATE)).not.toBe('finished');
  });

  it('ends a page that allocates 1.5 GB of heap with a typed error, and renders the next page', async () => {
    const error = await scraper.fetch({ url: `${site.origin}/browser-hostile/allocate?mb=1536` }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: 'FETCH_FAILED', message: expect.stringMatching(/crashed/) });
    expect((await scraper.fetch({ url: `${site.origin}/product.html` })).status).toBe(200);
  });
});
