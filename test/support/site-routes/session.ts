import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { FIXTURE_SITE_DIR, type FixtureSite, type RouteHandler } from '../site.js';

/**
 * A session-protected page (docs/wire.md, use session). The site root `/` serves the same index page as before and also
 * issues a `pj_session` cookie; `/session/protected.html` answers 403 unless that cookie is sent back.
 * `/session/expire` forgets every issued session, as a server would after a timeout, so tests can see a
 * cached client session refused and renewed.
 */
export const SESSION_COOKIE = 'pj_session';

const issuedBySite = new WeakMap<FixtureSite, Set<string>>();

function issued(site: FixtureSite): Set<string> {
  let tokens = issuedBySite.get(site);
  if (!tokens) {
    tokens = new Set();
    issuedBySite.set(site, tokens);
  }
  return tokens;
}

function sessionToken(req: IncomingMessage): string | undefined {
  const cookies = req.headers.cookie?.split(';').map((part) => part.trim()) ?? [];
  return cookies.find((part) => part.startsWith(`${SESSION_COOKIE}=`))?.slice(SESSION_COOKIE.length + 1);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const sessionRoutes: Record<string, RouteHandler> = {
  '/': async (_req, res, site) => {
    const token = randomBytes(12).toString('hex');
    issued(site).add(token);
    // FIXTURE_SITE_DIR is read at request time (this module and site.ts import each other).
    const body = await readFile(join(FIXTURE_SITE_DIR, 'index.html'));
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': body.length,
      'set-cookie': `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax`,
    });
    res.end(body);
  },
  '/session/protected.html': (req, res, site) => {
    const token = sessionToken(req);
    if (!token || !issued(site).has(token)) {
      res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Forbidden</title><h1>Forbidden</h1><p>Visit the home page first.</p>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html><head><title>Members area</title></head>
<body>
  <h1>Members area</h1>
  <table class="filings">
    <tr><th>Reference</th><th>Status</th></tr>
    <tr class="filing"><td class="ref">A-1001</td><td class="status">approved</td></tr>
    <tr class="filing"><td class="ref">A-1002</td><td class="status">pending</td></tr>
    <tr class="filing"><td class="ref">A-1003</td><td class="status">rejected</td></tr>
  </table>
</body></html>`);
  },
  // Refuses everyone, session or not: renewing must happen once and then give up.
  '/session/forbidden.html': (_req, res) => {
    res.writeHead(403, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Forbidden</title><h1>Forbidden</h1>');
  },
  '/session/expire': (_req, res, site) => {
    issued(site).clear();
    res.writeHead(204).end();
  },
  /** Shows the request headers as JSON inside a page, so tests can see what a scraper sent. */
  '/session/echo.html': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>Echo</title></head><body><pre id="headers">${escapeHtml(JSON.stringify(req.headers))}</pre></body></html>`,
    );
  },
};
