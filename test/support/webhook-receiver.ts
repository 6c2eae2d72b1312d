import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on 127.0.0.1 that verifies every request's Standard Webhooks signature with the
 * reference implementation, as a real subscriber would, and records what it accepted. `failNext(n)` makes it
 * answer 503 to the next n requests (counted in `attempts`); `accepted` holds each 2xx-answered event.
 */
export const TEST_SECRET = `whsec_${Buffer.from('pagejson test secret of 32 bytes!').toString('base64')}`;

export interface ReceivedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

export interface WebhookReceiver {
  url: string;
  accepted: ReceivedEvent[];
  /** Every request, including refused and badly signed ones. */
  attempts: Array<{ id: string | undefined; status: number }>;
  failNext(count: number): void;
  /** Answer 503 to everything until called with false. */
  failAll(on: boolean): void;
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startWebhookReceiver(secret = TEST_SECRET): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const accepted: ReceivedEvent[] = [];
  const attempts: WebhookReceiver['attempts'] = [];
  let failures = 0;
  let failing = false;
  const server: Server = createServer((request, response) => {
    void body(request).then((text) => {
      const id = request.headers['webhook-id'] as string | undefined;
      let status = 200;
      let event: { type: string; data: Record<string, unknown> } | undefined;
      try {
        event = verifier.verify(text, request.headers as Record<string, string>) as typeof event;
      } catch {
        status = 401;
      }
      if (status === 200 && (failing || failures > 0)) {
        status = 503;
        if (!failing) failures -= 1;
      }
      attempts.push({ id, status });
      if (status === 200 && event) accepted.push({ id: id!, type: event.type, data: event.data });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    accepted,
    attempts,
    failNext: (count) => (failures = count),
    failAll: (on) => (failing = on),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
