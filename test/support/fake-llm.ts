import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible server: real HTTP on 127.0.0.1 (port 0) speaking Chat Completions, so the real
 * `openai` client is exercised end to end without a real model. Each test scripts the replies (a queue, or a
 * function of the request) and reads back every request the client sent.
 */
export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: Record<string, unknown> } };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
}

/** A scripted reply: the assistant's content (a string, or a value sent as JSON), or a raw HTTP error. */
export type FakeReply =
  string | { json: unknown; usage?: { prompt_tokens: number; completion_tokens: number } } | { status: number; error: string };

export type ReplyScript = FakeReply[] | ((request: RecordedRequest, index: number) => FakeReply);

export interface FakeLlm {
  /** Base URL for the openai client and pagejson.json `models` (ends in /v1). */
  baseURL: string;
  requests: RecordedRequest[];
  /** Replace the script; a queue is consumed in order and an exhausted queue answers HTTP 500. */
  script(replies: ReplyScript): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE = { prompt_tokens: 100, completion_tokens: 20 };

export async function startFakeLlm(initial: ReplyScript = []): Promise<FakeLlm> {
  let script: ReplyScript = initial;
  let served = 0;
  const requests: RecordedRequest[] = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        send(404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
        return;
      }
      let body: ChatRequestBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      } catch {
        send(400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
        return;
      }
      const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body };
      requests.push(recorded);
      const index = served;
      served += 1;
      const reply = typeof script === 'function' ? script(recorded, index) : script[index];
      if (reply === undefined) {
        send(500, { error: { message: `fake LLM: no scripted reply for request ${index + 1}`, type: 'server_error' } });
        return;
      }
      if (typeof reply === 'object' && 'status' in reply) {
        send(reply.status, { error: { message: reply.error, type: 'server_error' } });
        return;
      }
      const content = typeof reply === 'string' ? reply : JSON.stringify(reply.json);
      const usage = typeof reply === 'string' ? DEFAULT_USAGE : (reply.usage ?? DEFAULT_USAGE);
      send(200, {
        id: `chatcmpl-fake-${index + 1}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(replies) {
      script = replies;
      served = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The user message of a recorded request: where pagejson puts the page HTML and the rule. */
export function userContent(request: RecordedRequest): string {
  return request.body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
}
