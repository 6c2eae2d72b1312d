import type OpenAI from 'openai';
import { isPagejsonError, PagejsonError } from '../shared/index.js';
import { createModelFetch, DEFAULT_MAX_ANSWER_BYTES } from './model-fetch.js';
import type { TokenUsage } from './types.js';

/**
 * One Chat Completions call through the `openai` client, with its own timeout and retries (the client's
 * options: a call that does not answer within `timeoutMs` is retried `maxRetries` times, then fails), the
 * model entry's headers, and the tokens of every answered call added to the caller's usage. The `openai`
 * package is imported on the first call, never at import time: most runs of the CLI never talk to a model.
 */
export interface ModelCallOptions {
  /** The name configs refer to (errors say it). */
  name: string;
  baseURL?: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  temperature: number;
  /** Resolved already (secrets in): sent with every call, never written into an error or a log. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Bytes an answer may have (default 4 MiB): more fails as "answered too much" (model-fetch.ts). */
  maxAnswerBytes?: number | undefined;
}

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };
export type ResponseFormat =
  { type: 'json_schema'; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } } | { type: 'json_object' };

export interface ModelCaller {
  /** The reply's text; its tokens are added to `usage` (also when the caller then finds the reply invalid). */
  complete(messages: ChatMessage[], format: ResponseFormat | undefined, usage: TokenUsage): Promise<string>;
}

/**
 * The bodies of the 400 and 422 answers, by the answer's headers (what the client's error keeps): vLLM and
 * FastAPI-based servers put their message at the top of the body, where the client does not look, so the
 * error it throws says only "400 status code (no body)". A refused response format is recognised by the body.
 */
const errorBodies = new WeakMap<object, string>();
const MAX_ERROR_BODY_CHARS = 4_000;

async function fetchKeepingErrorBodies(
  send: (url: string | URL | Request, init?: RequestInit) => Promise<Response>,
  url: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  const response = await send(url, init);
  if (response.status === 400 || response.status === 422) {
    const text = await response
      .clone()
      .text()
      .catch(() => '');
    errorBodies.set(response.headers, text.slice(0, MAX_ERROR_BODY_CHARS));
  }
  return response;
}

/** What the server said in a refused call's body: its message, wherever the server put it. */
function serverMessage(error: unknown): string | undefined {
  const headers = (error as { headers?: unknown }).headers;
  const body = headers && typeof headers === 'object' ? errorBodies.get(headers) : undefined;
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown; detail?: unknown };
    const inner = parsed.error && typeof parsed.error === 'object' ? (parsed.error as { message?: unknown }).message : parsed.error;
    const found = [parsed.message, inner, parsed.detail].find((value) => value !== undefined && value !== null);
    return typeof found === 'string' ? found : JSON.stringify(found ?? parsed);
  } catch {
    return body;
  }
}

export function createModelCaller(options: ModelCallOptions): ModelCaller {
  let client: Promise<OpenAI> | undefined;
  const send = createModelFetch({ name: options.name, maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES });
  const getClient = (): Promise<OpenAI> =>
    (client ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          apiKey: options.apiKey,
          baseURL: options.baseURL,
          timeout: options.timeoutMs,
          maxRetries: options.maxRetries,
          fetch: (url, init) => fetchKeepingErrorBodies(send, url, init),
          ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
        }),
    ));

  return {
    async complete(messages, format, usage) {
      const openai = await getClient();
      let completion;
      try {
        completion = await openai.chat.completions.create({
          model: options.model,
          messages,
          ...(format ? { response_format: format } : {}),
          temperature: options.temperature,
        });
      } catch (error) {
        throw callError(error, options);
      }
      usage.promptTokens += nonNegative(completion.usage?.prompt_tokens);
      usage.completionTokens += nonNegative(completion.usage?.completion_tokens);
      return completion.choices[0]?.message?.content ?? '';
    },
  };
}

/** A server's usage is outside input: a count that is not a whole non-negative number counts as none. */
function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function withoutControls(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : char;
  }
  return out;
}

/** The failure in words; the status kept, so that a refused response format is recognised by the caller. */
function callError(error: unknown, options: ModelCallOptions): PagejsonError {
  // Our own refusals (model-fetch.ts) reach here as the client's connection error's cause: said as they are.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (isPagejsonError(cause)) return cause;
  const status = (error as { status?: number }).status;
  if ((error as Error | undefined)?.constructor?.name === 'APIConnectionTimeoutError') {
    const tries = options.maxRetries + 1;
    return new PagejsonError(
      'MODEL_FAILED',
      `model ${options.name} timed out: no answer within ${options.timeoutMs} ms (${tries} ${tries === 1 ? 'try' : 'tries'})`,
      {
        context: { model: options.name, timedOut: true, timeoutMs: options.timeoutMs, tries },
        hint: `check that the model server at its baseURL is running, or raise models.${options.name}.timeoutMs in pagejson.json for a slow model`,
        cause: error,
      },
    );
  }
  // The server's words are outside input: shown in a terminal and a log, so no control characters (escape sequences).
  const message = withoutControls((serverMessage(error) ?? String((error as Error).message ?? error)).slice(0, 500));
  return new PagejsonError('MODEL_FAILED', `model ${options.name} could not be reached: ${status ? `HTTP ${status} ` : ''}${message}`, {
    context: { model: options.name, ...(status ? { status } : {}) },
    hint: "check the model's baseURL and API key in pagejson.json `models` (or OPENAI_API_KEY / OPENAI_BASE_URL)",
    cause: error,
  });
}
