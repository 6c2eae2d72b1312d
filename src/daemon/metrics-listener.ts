import { createServer, type Server } from 'node:http';
import type { DaemonMetrics } from './metrics.js';
import { createHostCheck } from './host-check.js';

/**
 * /metrics on a listener of its own (`metrics.listen`, default 127.0.0.1:9464): the metrics name every
 * apiId, which key scopes hide from callers of the public port. A port already taken is not a reason to
 * refuse to serve: the daemon says so in its log and runs without it.
 */
export interface MetricsListener {
  /** `http://host:port` as bound, or undefined when it could not listen. */
  url: string | undefined;
  close(): Promise<void>;
}

export function parseListen(listen: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:([0-9]{1,5})$/.exec(listen);
  if (!match) throw new Error(`cannot read metrics.listen "${listen}": write host:port`);
  return { host: match[1]!, port: Number(match[2]) };
}

export async function listenMetrics(metrics: DaemonMetrics, listen: string, warn: (message: string) => void): Promise<MetricsListener> {
  const { host, port } = parseListen(listen);
  // The same Host check as the public port (host-check.ts): a rebinding page must not read the apiIds here.
  const hostAllowed = createHostCheck({ configured: [host], bound: () => (server.address() as { address?: string } | null)?.address });
  const server: Server = createServer((request, response) => {
    if (!hostAllowed(request.headers.host)) {
      response.writeHead(421, { 'content-type': 'text/plain' }).end('this listener does not answer for that host\n');
      return;
    }
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  server.requestTimeout = 10_000;
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      warn(
        `metrics are not served: cannot listen on ${listen} (${error.code ?? error.message}); set metrics.listen in pagejson.json to another host:port, or false`,
      );
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!bound) return { url: undefined, close: async () => undefined };
  const address = server.address();
  const actual = typeof address === 'object' && address ? address : { address: host, port };
  const urlHost = actual.address.includes(':') ? `[${actual.address}]` : actual.address;
  return {
    url: `http://${urlHost}:${actual.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
