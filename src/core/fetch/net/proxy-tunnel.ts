import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { isPagejsonError } from '../../shared/index.js';
import { proxyErrorReason, proxyStatusReason } from './proxy-attempts.js';
import { basicProxyAuthorization } from './proxy-dispatchers.js';
import type { ProxyCandidate } from './proxy-rotation.js';
import { assertAllowedProxiedTarget } from './proxy-target.js';

/**
 * Scraper 3's guard proxy chained to an upstream proxy (docs/access.md): Chromium talks to the guard on
 * loopback as always, and the guard, instead of connecting to the source, checks the source's host by name
 * (proxy-target.ts) and then forwards a plain-HTTP request in absolute form, or opens a CONNECT tunnel,
 * through the upstream proxy with its `Proxy-Authorization`. Chromium never sees the upstream proxy or its
 * credentials. A failing upstream (unreachable, 407, a refused tunnel) is answered 502 and remembered by
 * target host, so the scraper can report the proxy rather than the page (proxy-attempts.ts).
 */

export const UPSTREAM_FAILED_HEADER = 'x-pagejson-proxy-failed';
const CONNECT_TIMEOUT_MS = 15_000;

export interface UpstreamHooks {
  allowPrivateNetworks: boolean;
  track(socket: Socket): void;
  /** The address guard refused the target (answered as the guard proxy answers its own refusals). */
  blocked(error: unknown): void;
  /** The upstream failed for this host, with a reason fit to print (no credentials). */
  failed(host: string, reason: string): void;
  succeeded(host: string): void;
}

function upstreamRequest(upstream: ProxyCandidate, options: RequestOptions): ClientRequest {
  const proxy = upstream.url;
  const authorization = basicProxyAuthorization(proxy);
  const headers = {
    ...(options.headers as IncomingHttpHeaders | undefined),
    ...(authorization ? { 'proxy-authorization': authorization } : {}),
  };
  const base = {
    ...options,
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
    headers,
    agent: false as const,
  };
  return proxy.protocol === 'https:' ? httpsRequest({ ...base, servername: proxy.hostname, rejectUnauthorized: true }) : httpRequest(base);
}

function refusal(error: unknown): boolean {
  return isPagejsonError(error) && error.code === 'FETCH_BLOCKED_ADDRESS';
}

/** A plain-HTTP request of Chromium's, forwarded in absolute form through the upstream proxy. */
export function forwardThroughUpstream(
  req: IncomingMessage,
  res: ServerResponse,
  target: URL,
  upstream: ProxyCandidate,
  endToEnd: (headers: IncomingHttpHeaders) => IncomingHttpHeaders,
  hooks: UpstreamHooks,
): void {
  const fail = (reason: string): void => {
    hooks.failed(target.hostname, reason);
    if (!res.headersSent) res.writeHead(502, { [UPSTREAM_FAILED_HEADER]: '1', connection: 'close' }).end();
    else res.destroy();
  };
  assertAllowedProxiedTarget(target, hooks.allowPrivateNetworks).then(
    () => {
      const outgoing = upstreamRequest(upstream, {
        method: req.method,
        path: target.href,
        headers: { ...endToEnd(req.headers), host: target.host },
      });
      outgoing.on('socket', hooks.track);
      outgoing.on('response', (response) => {
        if (response.statusCode === 407) {
          response.resume();
          return fail(proxyStatusReason(407));
        }
        hooks.succeeded(target.hostname);
        res.writeHead(response.statusCode ?? 502, response.statusMessage, endToEnd(response.headers));
        response.pipe(res);
        response.once('error', () => res.destroy());
      });
      outgoing.on('error', (error) => fail(proxyErrorReason(error)));
      res.once('close', () => outgoing.destroy());
      req.pipe(outgoing);
    },
    (error: unknown) => (refusal(error) ? hooks.blocked(error) : fail("the page's host could not be checked")),
  );
}

/** A CONNECT of Chromium's (HTTPS), tunnelled through the upstream proxy. */
export function tunnelThroughUpstream(
  client: Socket,
  head: Buffer,
  host: string,
  port: number,
  upstream: ProxyCandidate,
  hooks: UpstreamHooks,
): void {
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const fail = (reason: string): void => {
    hooks.failed(host, reason);
    if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n');
  };
  assertAllowedProxiedTarget(`https://${authority}/`, hooks.allowPrivateNetworks).then(
    () => {
      const connecting = upstreamRequest(upstream, {
        method: 'CONNECT',
        path: authority,
        headers: { host: authority },
        timeout: CONNECT_TIMEOUT_MS,
      });
      connecting.on('socket', hooks.track);
      connecting.once('connect', (response: IncomingMessage, tunnel: Socket, upstreamHead: Buffer) => {
        hooks.track(tunnel);
        // The connect timeout is not an idle limit on the tunnel: the page's deadline bounds that.
        tunnel.setTimeout(0);
        if (response.statusCode !== 200) {
          tunnel.destroy();
          return fail(proxyStatusReason(response.statusCode ?? 502));
        }
        hooks.succeeded(host);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (upstreamHead.length > 0) client.write(upstreamHead);
        if (head.length > 0) tunnel.write(head);
        tunnel.pipe(client);
        client.pipe(tunnel);
        tunnel.on('error', () => client.destroy());
        client.once('close', () => tunnel.destroy());
      });
      connecting.once('timeout', () => connecting.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      connecting.on('error', (error) => fail(proxyErrorReason(error)));
      client.on('error', () => connecting.destroy());
      connecting.end();
    },
    (error: unknown) => (refusal(error) ? hooks.blocked(error) : fail("the page's host could not be checked")),
  );
}
