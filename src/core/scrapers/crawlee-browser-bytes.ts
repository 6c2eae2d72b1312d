import type { Page } from 'playwright-core';

/**
 * The byte cap for a browser page. Playwright has no streaming view of a response, so a 50 MB document
 * would be downloaded and parsed in full before we could look at it. Chromium's DevTools protocol reports
 * each chunk as it arrives (`Network.dataReceived`); documents (the page and its frames) are counted, and
 * the page is stopped the moment they pass the cap. Subresources (images, scripts) are not counted: they
 * are not part of the HTML we return.
 */
export async function countDocumentBytes(page: Page, maxBytes: number, onExceeded: () => void): Promise<{ exceeded(): boolean }> {
  let exceeded = false;
  let received = 0;
  const documents = new Set<string>();
  try {
    const cdp = await page.context().newCDPSession(page);
    cdp.on('Network.requestWillBeSent', (event: { requestId: string; type?: string }) => {
      if (event.type === 'Document') documents.add(event.requestId);
    });
    cdp.on('Network.dataReceived', (event: { requestId: string; dataLength: number }) => {
      if (exceeded || !documents.has(event.requestId)) return;
      received += event.dataLength;
      if (received <= maxBytes) return;
      exceeded = true;
      onExceeded();
      void cdp.send('Page.stopLoading').catch(() => undefined);
    });
    await cdp.send('Network.enable');
  } catch {
    // Without DevTools access the cap still applies to the rendered HTML; only the early stop is lost.
  }
  return { exceeded: () => exceeded };
}
