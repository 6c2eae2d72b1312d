import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { isPagejsonError, type PagejsonError } from '../../shared/index.js';
import { assertAllowedUrlHost, createGuardedLookup } from '../net/address-guard.js';
import type { ProxyCandidate } from '../net/proxy-rotation.js';
import { forwardThroughUpstream, tunnelThroughUpstream, type UpstreamHooks } from '../net/proxy-tunnel.js';

/**
 * Scraper 3's address guard: a small forward proxy on 127.0.0.1 that Chromium sends all of its traffic
 * through (loopback included). Chromium resolves nothing itself then; every connection, be it the document,
 * a redirect hop, a script, an XHR or a WebSocket, is opened here with the same guarded lookup as scraper 1,
 * i.e. checked on the address actually connected to. `page.route` cannot do this: redirect hops bypass it.
 *
 * A refused plain-HTTP request is answered 403 with `x-pagejson-blocked: <address>` so the scraper can tell
 * a refusal from a real 403; a refused CONNECT (HTTPS) is remembered by host for the same purpose.
 *
 * It serves only the browser it was started for: every request must carry the random per-launch credential
 * (`Proxy-Authorization: Basic`, given to Chromium through Playwright's proxy settings); any other local client
 * gets 407 and never reaches the source or an upstream proxy whose credentials the guard adds (issue 45).
 */
export const BLOCKED_HEADER = 'x-pagejson-blocked';

const MAX_REMEMBERED_BLOCKS = 256;
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Playwright's `proxy` option for a browser or a context that goes through a guard. */
export interface GuardBrowserProxy {
  readonly server: string;
  readonly username: string;
  readonly password: string;
}

export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, without the credential. */
  readonly url: string;
  /** The guard with its credential, for Playwright's `proxy` option (launch or context). */
  readonly browserProxy: GuardBrowserProxy;
  /** The `Proxy-Authorization` value the guard accepts, for a client of pagejson's own (browser-remote-route.ts). */
  readonly authorization: string;
  /** The refused address for a host whose HTTPS tunnel was refused, if any. */
  blockedHost(hostname: string): string | undefined;
  /** Why the upstream proxy failed for a host, if it did last time (a guard chained to one: proxy-tunnel.ts). */
  upstreamFailure(hostname: string): string | undefined;
  close(): Promise<void>;
}

function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

function blockedAddressOf(error: unknown): string | undefined {
  const known = isPagejsonError(error) ? error : undefined;
  return known?.code === 'FETCH_BLOCKED_ADDRESS' ? String((known as PagejsonError).context.address) : undefined;
}

function refuse(res: ServerResponse, address: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(403, { 'content-type': 'text/plain', [BLOCKED_HEADER]: address, connection: 'close' });
  res.end(`address ${address} is not public\n`);
}

const GUARD_USER = 'pagejson';
const REALM_CHALLENGE = 'Basic realm="pagejson guard proxy"';

/** A fresh credential per guard: 24 random bytes, compared in constant time. */
function guardCredential(): { password: string; authorization: string; accepts(req: IncomingMessage): boolean } {
  const password = randomBytes(24).toString('base64url');
  const authorization = `Basic ${Buffer.from(`${GUARD_USER}:${password}`).toString('base64')}`;
  const expected = Buffer.from(authorization);
  return {
    password,
    authorization,
    accepts(req) {
      const given = Buffer.from(String(req.headers['proxy-authorization'] ?? ''));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

function askForCredential(res: ServerResponse): void {
  res.writeHead(407, { 'proxy-authenticate': REALM_CHALLENGE, 'content-type': 'text/plain', connection: 'close' });
  res.end("this proxy serves pagejson's browser only\n");
}

export async function startGuardProxy(allowPrivateNetworks: boolean, viaProxy?: ProxyCandidate): Promise<GuardProxy> {
  const lookup = createGuardedLookup(allowPrivateNetworks);
  const credential = guardCredential();
  const sockets = new Set<Socket>();
  const blockedHosts = new Map<string, string>();
  const rememberBlocked = (host: string, address: string): void => {
    // Only the latest refusals matter (they explain the failure of a page being fetched now).
    if (blockedHosts.size >= MAX_REMEMBERED_BLOCKS) blockedHosts.delete(blockedHosts.keys().next().value as string);
    blockedHosts.set(host, address);
  };
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const upstreamFailures = new Map<string, string>();
  const upstreamHooks = (blocked: (address: string) => void): UpstreamHooks => ({
    allowPrivateNetworks,
    track,
    blocked: (error) => blocked(blockedAddressOf(error) ?? 'unknown'),
    failed: (host, reason) => {
      if (upstreamFailures.size >= MAX_REMEMBERED_BLOCKS) upstreamFailures.delete(upstreamFailures.keys().next().value as string);
      upstreamFailures.set(host, reason);
    },
    succeeded: (host) => upstreamFailures.delete(host),
  });

  const server = createServer((req, res) => {
    if (!credential.accepts(req)) return askForCredential(res);
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not a proxy request');
      assertAllowedUrlHost(target, allowPrivateNetworks);
    } catch (error) {
      const address = blockedAddressOf(error);
      if (address) refuse(res, address);
      else res.writeHead(400, { connection: 'close' }).end();
      return;
    }
    if (viaProxy)
      return forwardThroughUpstream(
        req,
        res,
        target,
        viaProxy,
        endToEndHeaders,
        upstreamHooks((address) => refuse(res, address)),
      );
    const upstream = httpRequest(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: endToEndHeaders(req.headers),
        lookup,
        // One upstream connection per request: nothing idles at the source after the page is done.
        agent: false,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.statusMessage, endToEndHeaders(response.headers));
        response.pipe(res);
        response.once('error', () => res.destroy());
      },
    );
    upstream.on('socket', track);
    upstream.on('error', (error) => {
      const address = blockedAddressOf(error);
      if (address) refuse(res, address);
      else if (!res.headersSent) res.writeHead(502, { connection: 'close' }).end();
      else res.destroy();
    });
    // The page went away (closed, deadline): stop talking to the source as well.
    res.once('close', () => upstream.destroy());
    req.pipe(upstream);
  });

  server.on('connect', (req, client: Socket, head: Buffer) => {
    track(client);
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    const fail = (status: string): void => {
      client.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    };
    if (!credential.accepts(req)) {
      return void client.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: ${REALM_CHALLENGE}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
      );
    }
    if (!match) return fail('400 Bad Request');
    const [, host = '', port = '443'] = match;
    try {
      assertAllowedUrlHost(`https://${host.includes(':') ? `[${host}]` : host}:${port}/`, allowPrivateNetworks);
    } catch (error) {
      rememberBlocked(host, blockedAddressOf(error) ?? host);
      return fail('403 Forbidden');
    }
    if (viaProxy) {
      return tunnelThroughUpstream(
        client,
        head,
        host,
        Number(port),
        viaProxy,
        upstreamHooks((address) => {
          rememberBlocked(host, address);
          fail('403 Forbidden');
        }),
      );
    }
    const upstream = connect({ host, port: Number(port), lookup });
    track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      const address = blockedAddressOf(error);
      if (address) rememberBlocked(host, address);
      if (client.writable && upstream.bytesRead === 0) fail(address ? '403 Forbidden' : '502 Bad Gateway');
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
  });
  server.on('connection', track);
  // WebSocket upgrades over plain HTTP are not proxied; Chromium reports them as failed.
  server.on('upgrade', (_req, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The browser it serves keeps the process busy while it runs; the listening socket alone must not.
  server.unref();
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    browserProxy: { server: url, username: GUARD_USER, password: credential.password },
    authorization: credential.authorization,
    blockedHost: (hostname) => blockedHosts.get(hostname.replace(/^\[|\]$/g, '')),
    upstreamFailure: (hostname) => upstreamFailures.get(hostname.replace(/^\[|\]$/g, '')),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
