import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { formatCredits } from '../../core/shared/credit-amounts.js';
import type { RetrievalAnswer, RetrievalRequest } from '../../core/retrieval/retrieval-service.js';
import type { Runtime } from '../../core/runtime.js';
import { acceptsGzip } from '../accepts-gzip.js';
import { createBackstop, type Backstop } from '../backstop.js';
import type { DaemonMetrics } from '../metrics.js';
import { StreamBody } from '../request-body.js';

/**
 * `GET|POST /external/:apiId`: a thin adapter over the retrieval service. It turns the request into the
 * core's input and the answer into a reply; failures are thrown to the app's error handler, which answers
 * them from the error table. The success body is the cache's pre-serialised envelope, sent as is: the hit
 * path never re-serialises. Registered as a plugin of its own: its bodies are not read by the transport but
 * by the retrieval, after the key and endpoint rows (request-body.ts).
 */
export const JSON_UTF8 = 'application/json; charset=utf-8';

interface ExternalRoute {
  Params: { apiId: string };
  Querystring: Record<string, unknown>;
}

/**
 * The backstop of /external: a request still unanswered after `backstopMs` gets the 503 Fastify's handler
 * timeout would give. Fastify's own costs an AbortController, a timer and a socket listener per request (about
 * a tenth of a cache hit's CPU); this costs a list node, swept by one timer. The retrieval's own answer
 * deadline (which refunds) comes first; this only catches what has none (a state store that stops answering).
 */
function createReplyBackstop(app: FastifyInstance, backstopMs: number): Backstop<FastifyReply> {
  const backstop = createBackstop<FastifyReply>({
    deadlineMs: backstopMs,
    sweepMs: Math.max(10, Math.min(1_000, Math.floor(backstopMs / 4))),
    expire: (reply) => {
      if (!reply.sent) void reply.send(Object.assign(new Error(`no answer after ${backstopMs} ms`), { code: 'FST_ERR_HANDLER_TIMEOUT' }));
    },
  });
  app.addHook('onClose', async () => backstop.close());
  return backstop;
}

/** What the route asks of the app. Failures are the app's error handler's: it answers those. */
export interface ExternalRouteContext {
  runtime: Runtime;
  metrics: DaemonMetrics;
  backstopMs: number;
  /** A 200 goes out now: counted, logged, and closing its connection while the app drains (answers.ts). */
  answered(request: FastifyRequest, reply: FastifyReply): void;
}

const BEARER = /^\s*bearer\s/i;

/** The request in the core's terms. A body is handed over unread (the `*` parser below passes its stream). */
function retrievalRequest(request: FastifyRequest<ExternalRoute>): RetrievalRequest {
  const headers = request.headers;
  const header = headers.apikey;
  const apikey = Array.isArray(header) ? header[0] : header;
  const stream = request.body as IncomingMessage | undefined;
  return {
    apiId: request.params.apiId,
    apikey,
    method: request.method === 'POST' ? 'POST' : 'GET',
    body: stream === undefined ? undefined : new StreamBody(stream, headers['content-type'], Number(headers['content-length'])),
    query: request.query ?? {},
    // The most common first mistake: the key sent the way most APIs take one. Same answer, plus the way out.
    keyAsBearer: !apikey && BEARER.test(headers.authorization ?? ''),
  };
}

/** The answer as a 200: its headers, and the bytes (gzipped as kept, to a client that accepts gzip). */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: RetrievalAnswer, context: ExternalRouteContext): Buffer {
  context.metrics.countCache(answer.cache);
  reply.header('x-pagejson-cache', answer.cache);
  if (answer.cache === 'HIT' || answer.cache === 'STALE') reply.header('age', String(answer.ageSeconds));
  if (answer.creditsRemaining !== undefined) reply.header('x-pagejson-credits-remaining', formatCredits(answer.creditsRemaining));
  // On every answer, cached ones too (the endpoint's current health): a client need not know which answers have it.
  reply.header('x-pagejson-health', answer.health);
  // Paginated endpoints only (docs/pagination.md): the pages the answer holds, and why it was cut short if it was.
  if (answer.pages !== undefined) reply.header('x-pagejson-pages', String(answer.pages));
  if (answer.partial !== undefined) reply.header('x-pagejson-partial', answer.partial);
  context.answered(request, reply.code(200).type(JSON_UTF8));
  // The cache keeps most bodies gzipped (memory-bodies.ts): a client that accepts gzip gets those bytes as they
  // are: a fraction of the JSON's bytes to write, and no unpacking.
  if (answer.gzipped !== undefined) {
    reply.header('vary', 'accept-encoding');
    if (acceptsGzip(request.headers['accept-encoding'])) {
      reply.header('content-encoding', 'gzip');
      return answer.gzipped;
    }
  }
  return answer.bytes;
}

export const externalPlugin: FastifyPluginAsync<ExternalRouteContext> = async (app, context) => {
  const backstop = createReplyBackstop(app, context.backstopMs);
  const retrieval = context.runtime.retrieval;
  // Bodies of this plugin's routes are read by the retrieval (request-body.ts), not here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  // One async function for the whole answer (each async layer of a hit is a promise and a microtask more).
  const handler = async (request: FastifyRequest<ExternalRoute>, reply: FastifyReply): Promise<Buffer | FastifyReply> => {
    const entry = backstop.enter(reply);
    try {
      const answer = await retrieval.retrieve(retrievalRequest(request));
      // Answered by the backstop meanwhile: nothing more to send.
      if (reply.sent) return reply;
      return sendAnswer(request, reply, answer, context);
    } catch (error) {
      if (reply.sent) return reply;
      throw error;
    } finally {
      backstop.leave(entry);
    }
  };

  // HEAD is not exposed: it would run (and charge) a whole retrieval to send no body.
  app.route<ExternalRoute>({ method: 'GET', url: '/external/:apiId', exposeHeadRoute: false, handler });
  app.route<ExternalRoute>({ method: 'POST', url: '/external/:apiId', handler });
};
