import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible server: real HTTP on 127.0.0.1 (port 0) speaking Chat Completions, so the real
 * `openai` client is exercised end to end without a real model. Each test scripts the replies (a queue, or a
 * function of the request) and reads back every request the client sent.
 *
 * It misbehaves the ways the servers people run do (docs/models.md): it can refuse `response_format`
 * `json_schema` or `json_object` with the 400 bodies OpenAI, vLLM, LM Studio and llama.cpp send; a scripted
 * reply can ignore the format (prose, a fenced block), echo the schema back, hang, or come late; and usage can
 * be counted from the request (about 4 characters a token) or left out, as some servers do.
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

type Usage = { prompt_tokens: number; completion_tokens: number };

/**
 * A scripted reply: the assistant's content (a string, or a value sent as JSON), a raw HTTP error, the schema of
 * the request echoed back (as small models do), no answer at all (`hang`), or another reply after `delayMs`.
 */
export type FakeReply =
  | string
  | { json: unknown; usage?: Usage }
  | { status: number; error: string }
  | { echoSchema: true }
  | { hang: true }
  | { delayMs: number; reply: FakeReply }
  /** A redirect (307 keeps the request) to `location` (hostile servers, issue 45). */
  | { redirect: string; status?: number }
  /** An answer of `bytes` bytes of JSON-looking padding, streamed in 64 KiB chunks, with `status`. */
  | { huge: number; status?: number }
  /** Headers at once, then the body a byte every `everyMs`, never ending. */
  | { trickleEveryMs: number };

export type ReplyScript = FakeReply[] | ((request: RecordedRequest, index: number) => FakeReply);

/** The 400 bodies real servers answer an unsupported response_format with. */
export const REFUSAL_BODIES = {
  /** OpenAI, for a model without structured outputs. */
  openai: {
    error: {
      message:
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs",
      type: 'invalid_request_error',
      param: null,
      code: null,
    },
  },
  /** vLLM and other FastAPI-based servers. */
  vllm: {
    object: 'error',
    message: "1 validation error: response_format.type: Input should be 'text' or 'json_object'",
    type: 'BadRequestError',
    param: null,
    code: 400,
  },
  /** llama.cpp's server. */
  llamacpp: { error: { code: 400, message: "response_format type must be one of 'text' or 'json_object'", type: 'invalid_request_error' } },
  /** LM Studio refuses json_object (it takes json_schema or text), its error a bare string. */
  lmstudio: { error: "'response_format.type' must be 'json_schema' or 'text'" },
} as const;

export interface FakeBehaviour {
  /** What the server does with `response_format: json_schema`: take it (default) or refuse it with a 400. */
  jsonSchema?: 'accept' | 'refuse';
  /** The same for `response_format: json_object`. */
  jsonObject?: 'accept' | 'refuse';
  /** Which server's refusal body is sent (default: openai's for json_schema, lmstudio's for json_object). */
  refusal?: keyof typeof REFUSAL_BODIES;
  /** Usage in replies: a fixed 100/20 (default), counted from the request and the reply, or left out. */
  usage?: 'fixed' | 'counted' | 'none';
}

export interface FakeLlm {
  /** Base URL for the openai client and pagejson.json `models` (ends in /v1). */
  baseURL: string;
  requests: RecordedRequest[];
  /** Replace the script; a queue is consumed in order and an exhausted queue answers HTTP 500. */
  script(replies: ReplyScript): void;
  /** Change how the server treats response formats and usage (kept until changed again). */
  behave(behaviour: FakeBehaviour): void;
  /** Tokens the server has reported in its replies' usage since it started (or since the last script()). */
  reported: { promptTokens: number; completionTokens: number };
  close(): Promise<void>;
}

const DEFAULT_USAGE: Usage = { prompt_tokens: 100, completion_tokens: 20 };

/** About four characters a token, as tokenizers of English text give. */
function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function promptText(body: ChatRequestBody): string {
  return body.messages.map((message) => message.content).join('\n') + (body.response_format ? JSON.stringify(body.response_format) : '');
}

/** The schema a request carries: its response_format's, else the first fenced JSON block of its messages. */
function schemaOf(body: ChatRequestBody): string {
  const fromFormat = body.response_format?.json_schema?.schema;
  if (fromFormat) return JSON.stringify(fromFormat);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(body.messages.map((message) => message.content).join('\n'));
  return fenced?.[1]?.trim() ?? '{}';
}

function refusalFor(body: ChatRequestBody, behaviour: FakeBehaviour): unknown {
  const type = body.response_format?.type;
  const refused =
    (type === 'json_schema' && behaviour.jsonSchema === 'refuse') || (type === 'json_object' && behaviour.jsonObject === 'refuse');
  if (!refused) return undefined;
  return REFUSAL_BODIES[behaviour.refusal ?? (type === 'json_schema' ? 'openai' : 'lmstudio')];
}

export async function startFakeLlm(initial: ReplyScript = [], initialBehaviour: FakeBehaviour = {}): Promise<FakeLlm> {
  let script: ReplyScript = initial;
  let behaviour: FakeBehaviour = initialBehaviour;
  let served = 0;
  const requests: RecordedRequest[] = [];
  const reported = { promptTokens: 0, completionTokens: 0 };
  const timers = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, payload: unknown): void => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };

  const answer = (res: ServerResponse, body: ChatRequestBody, reply: FakeReply, index: number): void => {
    if (typeof reply === 'object' && 'hang' in reply) return;
    if (typeof reply === 'object' && 'redirect' in reply) {
      res.writeHead(reply.status ?? 307, { location: reply.redirect, 'content-length': '0' });
      res.end();
      return;
    }
    if (typeof reply === 'object' && 'huge' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      let left = reply.huge;
      const pump = (): void => {
        while (left > 0 && !res.destroyed) {
          const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    if (typeof reply === 'object' && 'trickleEveryMs' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('error', () => undefined);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), reply.trickleEveryMs);
      timers.add(timer);
      return;
    }
    if (typeof reply === 'object' && 'delayMs' in reply) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer(res, body, reply.reply, index);
      }, reply.delayMs);
      timers.add(timer);
      return;
    }
    if (typeof reply === 'object' && 'status' in reply) {
      send(res, reply.status, { error: { message: reply.error, type: 'server_error' } });
      return;
    }
    let content: string;
    if (typeof reply === 'string') content = reply;
    else if ('echoSchema' in reply) content = schemaOf(body);
    else content = JSON.stringify(reply.json);
    const scripted = typeof reply === 'object' && 'json' in reply ? reply.usage : undefined;
    const usage =
      scripted ??
      (behaviour.usage === 'counted'
        ? { prompt_tokens: countTokens(promptText(body)), completion_tokens: countTokens(content) }
        : DEFAULT_USAGE);
    if (behaviour.usage !== 'none') {
      reported.promptTokens += usage.prompt_tokens;
      reported.completionTokens += usage.completion_tokens;
    }
    send(res, 200, {
      id: `chatcmpl-fake-${index + 1}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      ...(behaviour.usage === 'none' ? {} : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
    });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
        return;
      }
      let body: ChatRequestBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      } catch {
        send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
        return;
      }
      const recorded: RecordedRequest = { method: req.method, path, headers: req.headers, body };
      requests.push(recorded);
      // A refused format is answered before the script is consulted: the server never ran the model.
      const refusal = refusalFor(body, behaviour);
      if (refusal) {
        send(res, 400, refusal);
        return;
      }
      const index = served;
      served += 1;
      const reply = typeof script === 'function' ? script(recorded, index) : script[index];
      if (reply === undefined) {
        send(res, 500, { error: { message: `fake LLM: no scripted reply for request ${index + 1}`, type: 'server_error' } });
        return;
      }
      answer(res, body, reply, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    reported,
    script(replies) {
      script = replies;
      served = 0;
      reported.promptTokens = 0;
      reported.completionTokens = 0;
    },
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
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

/**
 * One field as a model's structure reply writes it (pagejson asks with a strict schema: every property
 * present, null when absent); `extra` sets the rest (`{ fields: [...] }`, `{ transform: ['number'] }`).
 */
export function replyField(
  name: string,
  type: string,
  selector: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, type, selector, attribute: null, transform: null, description: null, items: null, fields: null, ...extra };
}
