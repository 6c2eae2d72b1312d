import type { CDPSession, Page } from 'playwright-core';

/**
 * What Playwright does not show while a document loads, read from Chromium's DevTools protocol:
 * - bytes as they arrive (`Network.dataReceived`): Playwright has no streaming view of a response, so a
 *   50 MB document would be downloaded and parsed in full before we could look at it. Documents (the page
 *   and its frames) are counted and the page is stopped the moment they pass the cap; subresources (images,
 *   scripts) are not part of the HTML we return and are not counted.
 * - a main document that failed mid-body (`Network.loadingFailed`: reset, truncated, corrupt gzip): Chromium
 *   then shows its error page and `page.goto` waits for a load event that never comes, until the deadline.
 */
export interface DocumentWatch {
  exceeded(): boolean;
  /** Chromium's reason (`net::ERR_CONNECTION_RESET`) when the main document failed to load. */
  failure(): string | undefined;
  /** Ends the DevTools session (before a retry on the same page, which gets a watch of its own). */
  stop(): Promise<void>;
}

export async function watchDocuments(
  page: Page,
  options: { maxBytes: number; onTooLarge(): void; onFailed(reason: string): void },
): Promise<DocumentWatch> {
  let exceeded = false;
  let failure: string | undefined;
  let received = 0;
  const documents = new Set<string>();
  let mainDocument: string | undefined;
  let cdp: CDPSession | undefined;
  try {
    cdp = await page.context().newCDPSession(page);
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const mainFrameId = frameTree.frame.id;
    cdp.on('Network.requestWillBeSent', (event: { requestId: string; type?: string; frameId?: string }) => {
      if (event.type !== 'Document') return;
      documents.add(event.requestId);
      if (event.frameId === mainFrameId) mainDocument = event.requestId;
    });
    cdp.on('Network.dataReceived', (event: { requestId: string; dataLength: number }) => {
      if (exceeded || !documents.has(event.requestId)) return;
      received += event.dataLength;
      if (received <= options.maxBytes) return;
      exceeded = true;
      options.onTooLarge();
      void cdp?.send('Page.stopLoading').catch(() => undefined);
    });
    cdp.on('Network.loadingFailed', (event: { requestId: string; errorText?: string; canceled?: boolean }) => {
      if (event.requestId !== mainDocument || exceeded || event.canceled || failure) return;
      failure = event.errorText ?? 'net::ERR_FAILED';
      options.onFailed(failure);
    });
    await cdp.send('Network.enable');
  } catch {
    // Without DevTools access the cap still applies to the rendered HTML; only the early answers are lost.
  }
  return {
    exceeded: () => exceeded,
    failure: () => failure,
    stop: async () => {
      await cdp?.detach().catch(() => undefined);
    },
  };
}
