import type { ServerResponse } from 'node:http';
import type { FixtureSite, RouteHandler } from '../site.js';

/**
 * Pages that attack the browser that renders them (issue 40, item 6), for scraper 3's hostile-page tests:
 * popups that spin forever, a download started by script, a page that allocates more memory than any
 * page should. Each answers quickly itself: the damage is what it leaves running.
 */
export const POPUP_COUNT = 3;
/** Where the download route records how it is going: `started`, then `aborted` (the browser hung up) or `finished`. */
export const DOWNLOAD_STATE = 'browser-hostile-download';
/** The download trickles for this long unless the browser hangs up: longer than any fetch in the tests. */
const DOWNLOAD_MS = 60_000;

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Hostile browser fixture</title></head><body>${body}</body></html>`);
}

/** Trickles a file (64 KB every 20 ms) until the browser hangs up, and records which came first. */
function trickleDownload(res: ServerResponse, site: FixtureSite): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  site.state.set(DOWNLOAD_STATE, 'started');
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="payload.bin"' });
  const timer = setInterval(() => res.write(chunk), 20);
  const end = setTimeout(() => {
    clearInterval(timer);
    site.state.set(DOWNLOAD_STATE, 'finished');
    res.end();
  }, DOWNLOAD_MS);
  res.once('close', () => {
    clearInterval(timer);
    clearTimeout(end);
    if (site.state.get(DOWNLOAD_STATE) === 'started') site.state.set(DOWNLOAD_STATE, 'aborted');
  });
}

export const browserHostileRoutes: Record<string, RouteHandler> = {
  // Three `noopener` popups, each a page that never yields its renderer's main thread.
  '/browser-hostile/popups': (_req, res) =>
    html(
      res,
      `<h1>Popups</h1><p class="note">opened ${POPUP_COUNT}</p><script>` +
        `for (let i = 0; i < ${POPUP_COUNT}; i += 1) window.open('/browser-hostile/spin?n=' + i, '_blank', 'noopener');` +
        '</script>',
    ),
  '/browser-hostile/spin': (_req, res) => html(res, '<h1>Spin</h1><script>while (true) {}</script>'),
  // A download started by script as soon as the page loads. The page then asks the site how the download is
  // going (every 100 ms, for up to 2 s, until it is no longer running) and shows the answer, so the rendered
  // HTML says what the browser did with the download while the page was open.
  '/browser-hostile/download': (_req, res) =>
    html(
      res,
      '<h1>Download</h1><a id="file" href="/browser-hostile/download.bin" download="payload.bin">payload</a>' +
        '<p id="download">download pending</p><script>document.getElementById("file").click();' +
        'let polls = 0; const poll = async () => { const state = await (await fetch("/browser-hostile/download-state")).text();' +
        ' document.getElementById("download").textContent = "download " + state; polls += 1;' +
        ' if ((state === "started" || state === "none") && polls < 20) setTimeout(poll, 100); }; setTimeout(poll, 100);</script>',
    ),
  '/browser-hostile/download.bin': (_req, res, site) => trickleDownload(res, site),
  '/browser-hostile/download-state': (_req, res, site) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(site.state.get(DOWNLOAD_STATE) ?? 'none');
  },
  // Grows the JavaScript heap by 16 MB arrays of doubles (heap memory, unlike an ArrayBuffer's bytes) up to
  // `?mb=` (1,536 by default), then says so.
  '/browser-hostile/allocate': (req, res) => {
    const mb = Math.min(Number(new URL(req.url ?? '/', 'http://fixture').searchParams.get('mb') ?? '1536') || 1536, 4096);
    html(
      res,
      '<h1>Allocate</h1><p id="state">allocating</p><script>' +
        `const kept = []; for (let i = 0; i < ${Math.ceil(mb / 16)}; i += 1) kept.push(new Array(2 * 1024 * 1024).fill(i + 0.5));` +
        "document.getElementById('state').textContent = 'allocated ' + kept.length * 16 + ' MB';" +
        '</script>',
    );
  },
};
