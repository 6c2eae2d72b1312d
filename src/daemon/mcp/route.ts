import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { createEndpointMcpServer } from './server.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endpointTool } from '../../core/catalog/endpoint-tools.js';
import { digestKey } from '../../core/access/keys.js';
import { keyStatus } from '../../core/access/key-service.js';
import type { Runtime } from '../../core/runtime.js';
import { errorEnvelope, errorReply, MESSAGES } from '../errors.js';
import { inScope, keyScope } from '../key-scope.js';
import { JSON_UTF8 } from '../routes/external.js';
import { callJobTool, isJobTool, JOB_TOOLS } from './job-tools.js';
import { createMcpSessions, MCP_SESSION_LIMITS, type McpSessions } from './sessions.js';

/**
 * The MCP SDK (and the zod it brings) is ~4 MB of the daemon's heap once loaded, code and sources: it loads
 * with the first MCP session, not at every start.
 */
let sdk: Promise<{ Transport: typeof StreamableHTTPServerTransport; createServer: typeof createEndpointMcpServer }> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]).then(
    ([transport, server]) => ({
      Transport: transport.StreamableHTTPServerTransport,
      createServer: server.createEndpointMcpServer,
    }),
  ));

/**
 * Streamable HTTP MCP at `/mcp`: every active endpoint the `apikey` may call is a tool, and a tool call is a
 * retrieval through the same service as `/external/{apiId}`: charged, cached and counted the same way. The
 * job tools (job-tools.ts) come after them.
 * Sessions are kept (so that a hot-reloaded config is announced with `tools/list_changed`), each bound to the
 * key that opened it, within the limits of sessions.ts.
 */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  close(): Promise<void>;
}

const registries = new WeakMap<FastifyInstance, McpSessions<Session>>();

/** The sessions of an app's /mcp (tests sweep them on their own clock). */
export function mcpSessionsOf(app: FastifyInstance): McpSessions<Session> | undefined {
  return registries.get(app);
}

const refuse = (reply: FastifyReply, status: number, message: string, code: string) =>
  reply
    .code(status)
    .type(JSON_UTF8)
    .send(errorEnvelope([{ message, code }]));

function sourceFor(runtime: Runtime, apikey: string) {
  return {
    async list() {
      // Asked again at every listing: a key revoked or rescoped meanwhile sees that.
      const verdict = await keyScope(runtime, apikey);
      const scope = verdict.ok ? verdict.scope : [];
      const endpoints = runtime.configs
        .list()
        .filter((config) => inScope(scope, config))
        .sort((a, b) => a.apiId.localeCompare(b.apiId))
        .map((config) => endpointTool(config, { sourceUrls: runtime.settings.docs.sourceUrls }));
      return verdict.ok ? [...endpoints, ...JOB_TOOLS] : endpoints;
    },
    async call(name: string, args: Record<string, unknown>) {
      try {
        if (isJobTool(name)) return { data: await callJobTool(runtime, apikey, name, args) };
        const answer = await runtime.retrieval.retrieve({
          apiId: name,
          apikey,
          method: 'POST',
          body: { raw: Buffer.from(JSON.stringify(args)), contentType: 'application/json' },
          query: {},
        });
        return { data: (JSON.parse(answer.body) as { data: unknown }).data };
      } catch (error) {
        return {
          error: errorReply(error)
            .errors.map((e) => e.message)
            .join('; '),
        };
      }
    },
  };
}

function parseBody(request: FastifyRequest): { ok: true; body: unknown } | { ok: false } {
  if (request.method !== 'POST') return { ok: true, body: undefined };
  try {
    return { ok: true, body: JSON.parse((request.body as Buffer | undefined)?.toString('utf8') ?? '') };
  } catch {
    return { ok: false };
  }
}

export function registerMcpRoute(app: FastifyInstance, runtime: Runtime): void {
  const sessions = createMcpSessions<Session>({
    now: () => runtime.now().getTime(),
    // Not verifyApiKey: a sweep is not a use of the key, so it must not move its lastUsedAt.
    keyValid: async (keyDigest) => {
      const record = await runtime.store.findKeyByDigest(keyDigest);
      return record !== undefined && keyStatus(record, runtime.now()) === 'active';
    },
  });
  registries.set(app, sessions);
  const sweeper = setInterval(() => void sessions.sweep(), MCP_SESSION_LIMITS.sweepMs).unref();

  const unsubscribe = runtime.subscribe((event) => {
    if (event.kind !== 'config') return;
    for (const session of sessions.sessions()) void session.server.sendToolListChanged().catch(() => undefined);
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    unsubscribe();
    await sessions.closeAll();
  });

  /** An `initialize`: admitted within the key's limits, then handed to a new transport. */
  async function open(request: FastifyRequest, reply: FastifyReply, apikey: string, keyDigest: string, body: unknown) {
    const admission = sessions.admit(keyDigest);
    if (!admission.ok) {
      if (admission.retryAfterSeconds !== undefined) void reply.header('retry-after', String(admission.retryAfterSeconds));
      return refuse(reply, admission.status, admission.message, admission.code);
    }
    try {
      const { Transport, createServer } = await loadSdk();
      const server = createServer(sourceFor(runtime, apikey));
      const transport: StreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => admission.opened(id, { transport, server, close: () => transport.close() }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.forget(transport.sessionId);
      };
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, body);
    } finally {
      // Gives the place back unless the request opened a session.
      admission.release();
    }
    return reply;
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.apikey;
    const verdict = await keyScope(runtime, Array.isArray(header) ? header[0] : header);
    if (!verdict.ok) return refuse(reply, 401, verdict.message, verdict.code);
    const { apikey } = verdict;
    const keyDigest = digestKey(apikey);
    const parsed = parseBody(request);
    if (!parsed.ok) return refuse(reply, 400, MESSAGES.bodyInvalidJson, 'BODY_INVALID_JSON');

    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (!sessionId) {
      if (request.method !== 'POST') return refuse(reply, 400, 'start an MCP session with an initialize request', 'MCP_SESSION');
      return open(request, reply, apikey, keyDigest, parsed.body);
    }
    const session = sessions.find(sessionId, keyDigest);
    if (!session)
      return refuse(
        reply,
        404,
        'no such MCP session (it ended, or sat idle too long): start a new one with an initialize request',
        'MCP_SESSION',
      );
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, parsed.body);
    return reply;
  };

  for (const method of ['GET', 'POST', 'DELETE'] as const) app.route({ method, url: '/mcp', handler });
}
