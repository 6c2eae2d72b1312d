import { PagejsonError } from '../shared/index.js';

/**
 * The `fetch` the model client uses (issue 45): a model server is outside input like a page.
 *
 * - **No redirect to another origin.** The client sends the entry's headers (`models.<name>.headers`, a proxy's
 *   key) and the API key with every request; a redirect would carry them to wherever the server points. A
 *   redirect within the origin that keeps the request (307, 308) is followed, at most 5 times; one to another
 *   origin fails naming its host; any other is the server's answer (an error status to the client).
 * - **Bounded answers.** The body is read here, at most `maxAnswerBytes`, before the client parses it (on the
 *   daemon's main thread) or keeps an error's words: more is "answered too much". Reading it here also puts
 *   the body under the client's per-try timeout, which otherwise ends when the headers arrive, so an answer
 *   trickled a byte a second fails as a timeout, not as something else later.
 */

export const DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_HOPS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export interface ModelFetchOptions {
  name: string;
  maxAnswerBytes: number;
}

function urlOf(input: string | URL | Request): URL {
  return new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
}

async function readBounded(response: Response, options: ModelFetchOptions): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > options.maxAnswerBytes) {
      await reader.cancel().catch(() => undefined);
      throw new PagejsonError(
        'MODEL_FAILED',
        `model ${options.name}: the model answered too much (more than ${options.maxAnswerBytes} bytes)`,
        {
          context: { model: options.name, maxAnswerBytes: options.maxAnswerBytes, tooLarge: true },
          hint: `check the model's baseURL; raise models.${options.name}.maxAnswerBytes in pagejson.json if its answers are really that large`,
        },
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function redirectRefused(name: string, to: URL): PagejsonError {
  return new PagejsonError(
    'MODEL_FAILED',
    `model ${name} redirected to another origin (${to.host}): not followed, its headers would go there`,
    {
      context: { model: name, redirectedTo: to.host },
      hint: `set models.${name}.baseURL in pagejson.json to the address the server answers at`,
    },
  );
}

export function createModelFetch(options: ModelFetchOptions): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    let url = urlOf(input);
    const origin = url.origin;
    for (let hop = 0; ; hop += 1) {
      const response = await fetch(url, { ...init, redirect: 'manual' });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        const next = new URL(location, url);
        if (next.origin !== origin) {
          await response.body?.cancel().catch(() => undefined);
          throw redirectRefused(options.name, next);
        }
        if ((response.status === 307 || response.status === 308) && hop < MAX_HOPS) {
          await response.body?.cancel().catch(() => undefined);
          url = next;
          continue;
        }
      }
      const body = NULL_BODY.has(response.status) ? null : await readBounded(response, options);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
  };
}
