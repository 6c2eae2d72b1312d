import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../core/runtime.js';
import { errorEnvelope } from './errors.js';
import { JSON_UTF8 } from './routes/external.js';

/**
 * The Host check (docs/security.md, "DNS rebinding"): a page on another site can make a browser resolve its
 * own name to the daemon's address and read the answers, unless the daemon refuses requests whose Host is not
 * one of its own. Its own: loopback names (`localhost`, `*.localhost`, 127.0.0.0/8, ::1), the address it is
 * bound to (on a wildcard bind, every address of the machine's interfaces), `server.host`, the host of
 * `dashboard.publicUrl` and the names in `server.allowedHosts`. Others get 421. The port is not compared: a
 * proxy in front may forward on another one, and a rebinding page cannot choose its Host's name.
 *
 * `/healthz` is not checked: it answers a constant, and load balancers' probes send a Host of their own.
 */
const UNCHECKED_ROUTES = new Set(['/healthz']);
/** How often the interface addresses are read again on a wildcard bind, when a Host is not among them. */
const INTERFACES_REFRESH_MS = 10_000;

/** `[::1]:8080` → `::1`, `Example.COM.:80` → `example.com`; undefined when the header is not a host. */
export function hostName(header: string): string | undefined {
  let name: string;
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    if (end < 0) return undefined;
    name = header.slice(1, end);
  } else {
    const colon = header.indexOf(':');
    name = colon < 0 ? header : header.slice(0, colon);
  }
  name = name.toLowerCase().replace(/\.$/, '');
  return name === '' ? undefined : name;
}

function isLoopback(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

export interface HostSources {
  /** The address the server is bound to now (undefined before listen, e.g. under inject). */
  bound(): string | undefined;
  /** Names configured by the operator: server.host, dashboard.publicUrl's host, server.allowedHosts. */
  configured: string[];
  /** ms clock for refreshing interface addresses. */
  now?: () => number;
}

/** Whether a Host header names this daemon (absent: yes, HTTP/1.0 clients send none and browsers always do). */
export function createHostCheck(sources: HostSources): (header: string | undefined) => boolean {
  const configured = new Set(sources.configured.map((name) => hostName(name)).filter((name): name is string => name !== undefined));
  const now = sources.now ?? Date.now;
  let interfaces = new Set<string>();
  let readAt = Number.NEGATIVE_INFINITY;
  const readInterfaces = () => {
    readAt = now();
    interfaces = new Set(
      Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address.toLowerCase().replace(/%.*$/, ''))),
    );
  };
  return (header) => {
    if (header === undefined || header === '') return true;
    const name = hostName(header);
    if (name === undefined) return false;
    if (isLoopback(name) || configured.has(name)) return true;
    const bound = sources.bound()?.toLowerCase();
    if (bound === undefined) return false;
    if (bound !== '0.0.0.0' && bound !== '::') return name === bound;
    if (!interfaces.has(name) && now() - readAt >= INTERFACES_REFRESH_MS) readInterfaces();
    return interfaces.has(name);
  };
}

/** The operator's names for the daemon: server.host, dashboard.publicUrl's host, server.allowedHosts. */
export function configuredHosts(runtime: Runtime): string[] {
  const { server, dashboard } = runtime.settings;
  const names = [server.host, ...server.allowedHosts];
  if (dashboard.publicUrl) names.push(new URL(dashboard.publicUrl).host);
  return names;
}

/** Registers the check on every route of the app (an onRequest hook, before any other work). */
export function registerHostCheck(app: FastifyInstance, runtime: Runtime): void {
  const allowed = createHostCheck({
    configured: configuredHosts(runtime),
    bound: () => {
      const address = app.server.address();
      return typeof address === 'object' && address ? address.address : undefined;
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    if (allowed(host) || UNCHECKED_ROUTES.has(request.routeOptions.url ?? '')) return done();
    const shown = JSON.stringify(String(host).slice(0, 100));
    const message = `this daemon does not answer for the host ${shown}: call it by an address it serves, or add the name to server.allowedHosts in pagejson.json`;
    void reply
      .code(421)
      .type(JSON_UTF8)
      .send(errorEnvelope([{ message, code: 'MISDIRECTED_REQUEST' }]));
  });
}
