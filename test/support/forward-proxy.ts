import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A real forward proxy for the tests of proxies (docs/access.md), on node:http: plain-HTTP requests in
 * absolute form (`GET http://host/path`) and HTTPS through CONNECT tunnels, both only with the right
 * `Proxy-Authorization: Basic` (else 407 with `Proxy-Authenticate`), as squid or tinyproxy with basic auth
 * answer. It counts what it forwards, so a test can prove a fetch went through it, and what it refused.
 */
export interface ForwardedRequest {
  /** `GET` for an absolute-form request, `CONNECT` for a tunnel. */
  method: string;
  /** The absolute URL, or `host:port` of a tunnel. */
  target: string;
  /** The request's headers as the proxy received them (for absolute-form requests). */
  headers: IncomingHttpHeaders;
}

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  readonly url: string;
  readonly port: number;
  /** The proxy URL with these credentials in it (percent-encoded). */
  urlWith(username: string, password: string): string;
  readonly forwarded: ForwardedRequest[];
  /** Requests and tunnels refused with 407 (no or wrong credentials). */
  readonly refused: number;
  /** Forwarded requests whose target contains `fragment` (a path, a host:port). */
  countTo(fragment: string): number;
  reset(): void;
  close(): Promise<void>;
}

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

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

export async function startForwardProxy(options: { username?: string; password?: string } = {}): Promise<ForwardProxy> {
  const expected =
    options.username !== undefined ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}` : undefined;
  const forwarded: ForwardedRequest[] = [];
  const sockets = new Set<Socket>();
  let refused = 0;
  const authorized = (req: IncomingMessage): boolean => {
    if (expected === undefined || req.headers['proxy-authorization'] === expected) return true;
    refused += 1;
    return false;
  };
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((req, res) => {
    if (!authorized(req)) {
      res
        .writeHead(407, { 'proxy-authenticate': 'Basic realm="pagejson-test"', 'content-type': 'text/plain' })
        .end('proxy authentication required\n');
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form requests only\n');
      return;
    }
    forwarded.push({ method: req.method ?? 'GET', target: target.href, headers: req.headers });
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port || 80,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: endToEnd(req.headers),
        agent: false,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, endToEnd(response.headers));
        response.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('upstream failed\n')));
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    if (!authorized(req)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="pagejson-test"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      );
      return;
    }
    const [host = '', port = '443'] = (req.url ?? '').replace(/^\[|\](?=:)/g, '').split(/:(?=\d+$)/);
    forwarded.push({ method: 'CONNECT', target: req.url ?? '', headers: req.headers });
    const upstream = connect({ host, port: Number(port) });
    track(upstream);
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', track);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    urlWith: (username, password) => `http://${encodeURIComponent(username)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    forwarded,
    get refused() {
      return refused;
    },
    countTo: (fragment) => forwarded.filter((entry) => entry.target.includes(fragment)).length,
    reset() {
      forwarded.length = 0;
      refused = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
