import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo, Socket } from 'node:net';
import { siteRoutes } from './site-routes/index.js';

/**
 * The fixture site: a real HTTP server on 127.0.0.1 (port 0) serving test/fixtures/site, plus dynamic routes
 * (sessions, faults, slow pages) registered in test/support/site-routes. It counts hits per path so tests
 * can prove how often the source was fetched. The demo uses it as the bundled example site.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
// Works from the sources (test/support) and from the build (dist/test/support) alike.
const repoRoot = here.includes('/dist/') ? join(here, '../../..') : join(here, '../..');
export const FIXTURE_SITE_DIR = join(repoRoot, 'test/fixtures/site/');

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, site: FixtureSite) => void | Promise<void>;

export interface FixtureSite {
  url: string;
  origin: string;
  port: number;
  server: Server;
  /** Requests seen per pathname (query string ignored). */
  hits: Map<string, number>;
  hitCount(pathname: string): number;
  /** Resolves once `pathname` has been requested `count` times (since the last reset): at the request itself. */
  whenHits(pathname: string, count: number): Promise<void>;
  resetHits(): void;
  /** Open sockets right now: tests check that nothing was leaked after faults. */
  openSockets(): number;
  /** Switches routes read (the drift pages: which version of a site is live). */
  state: Map<string, string>;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** Static pages may declare their own charset by file name: `*.windows-1252.html`, `*.shift_jis.html`. */
function contentTypeFor(path: string): string {
  const charset = /\.(windows-1252|shift_jis|iso-8859-1)\.html$/.exec(path)?.[1];
  if (charset) return `text/html; charset=${charset}`;
  return CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
}

export async function startFixtureSite(options: { port?: number; host?: string } = {}): Promise<FixtureSite> {
  const hits = new Map<string, number>();
  const hitWaiters = new Set<{ pathname: string; count: number; resolve: () => void }>();
  const sockets = new Set<Socket>();
  const host = options.host ?? '127.0.0.1';
  // eslint-disable-next-line prefer-const
  let site: FixtureSite;

  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
    hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
    for (const waiter of hitWaiters) {
      if (waiter.pathname !== pathname || hits.get(pathname)! < waiter.count) continue;
      hitWaiters.delete(waiter);
      waiter.resolve();
    }
    const route = siteRoutes[pathname];
    if (route) {
      Promise.resolve(route(req, res, site)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
      return;
    }
    void serveStatic(pathname, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A port in use must reject (callers such as the demo fall back to a free port), not crash the process.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host}:${port}`;
  site = {
    url: `${origin}/`,
    origin,
    port,
    server,
    hits,
    hitCount: (pathname) => hits.get(pathname) ?? 0,
    whenHits: (pathname, count) =>
      (hits.get(pathname) ?? 0) >= count ? Promise.resolve() : new Promise<void>((resolve) => hitWaiters.add({ pathname, count, resolve })),
    resetHits: () => hits.clear(),
    openSockets: () => sockets.size,
    state: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return site;
}

async function serveStatic(pathname: string, res: ServerResponse): Promise<void> {
  const relative = normalize(decodeURIComponent(pathname)).replace(/^(\.\.(\/|$))+/, '');
  let file = join(FIXTURE_SITE_DIR, relative);
  if (pathname.endsWith('/')) file = join(file, 'index.html');
  if (!file.startsWith(FIXTURE_SITE_DIR)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': contentTypeFor(file), 'content-length': body.length });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
  }
}
