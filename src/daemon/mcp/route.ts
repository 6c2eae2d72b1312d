import { randomUUID } from 'node:crypto';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { createEndpointMcpServer } from './server.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endpointTool } from '../../core/catalog/endpoint-tools.js';
import { digestKey } from '../../core/access/keys.js';
import type { Runtime } from '../../core/runtime.js';
import { errorEnvelope, errorReply, MESSAGES } from '../errors.js';
import { inScope, keyScope } from '../key-scope.js';
import { JSON_UTF8 } from '../routes/external.js';

/**
 * The MCP SDK (and the zod it brings) is ~4 MB of the daemon's heap once loaded, code and sources: it loads
 * with the first MCP session, not at every start.
 */
let sdk: Promise<{ Transport: typeof StreamableHTTPServerTransport; createServer: typeof createEndpointMcpServer }> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]).then(([transport, server]) => ({
    Transport: transport.StreamableHTTPServerTransport,
    createServer: server.createEndpointMcpServer,
  })));

/**
 * Streamable HTTP MCP at `/mcp`: every active endpoint the `apikey` may call is a tool, and a tool call is a
 * retrieval through the same service as `/external/{apiId}`: charged, cached and counted the same way.
 * Sessions are kept (so that a hot-reloaded config is announced with `tools/list_changed`), each bound to the
 * key that opened it.
 */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  keyDigest: string;
}

const MAX_SESSIONS = 1_000;

export function registerMcpRoute(app: FastifyInstance, runtime: Runtime): void {
  const sessions = new Map<string, Session>();

  const unsubscribe = runtime.subscribe((event) => {
    if (event.kind !== 'config') return;
    for (const session of sessions.values()) void session.server.sendToolListChanged().catch(() => undefined);
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    await Promise.allSettled([...sessions.values()].map((session) => session.transport.close()));
    sessions.clear();
  });

  const refuse = (reply: FastifyReply, status: number, message: string, code: string) => reply.code(status).type(JSON_UTF8).send(errorEnvelope([{ message, code }]));

  function sourceFor(apikey: string) {
    return {
      async list() {
        // Asked again at every listing: a key revoked or rescoped meanwhile sees that.
        const verdict = await keyScope(runtime, apikey);
        const scope = verdict.ok ? verdict.scope : [];
        return runtime.configs
          .list()
          .filter((config) => inScope(scope, config))
          .sort((a, b) => a.apiId.localeCompare(b.apiId))
          .map(endpointTool);
      },
      async call(name: string, args: Record<string, unknown>) {
        try {
          const answer = await runtime.retrieval.retrieve({ apiId: name, apikey, method: 'POST', body: { raw: Buffer.from(JSON.stringify(args)), contentType: 'application/json' }, query: {} });
          return { data: (JSON.parse(answer.body) as { data: unknown }).data };
        } catch (error) {
          return { error: errorReply(error).errors.map((e) => e.message).join('; ') };
        }
      },
    };
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.apikey;
    const verdict = await keyScope(runtime, Array.isArray(header) ? header[0] : header);
    if (!verdict.ok) return refuse(reply, 401, verdict.message, verdict.code);
    const { apikey } = verdict;
    const keyDigest = digestKey(apikey);

    let body: unknown;
    if (request.method === 'POST') {
      try {
        body = JSON.parse((request.body as Buffer | undefined)?.toString('utf8') ?? '');
      } catch {
        return refuse(reply, 400, MESSAGES.bodyInvalidJson, 'BODY_INVALID_JSON');
      }
    }
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && (!session || session.keyDigest !== keyDigest)) return refuse(reply, 404, 'no such MCP session', 'MCP_SESSION');
    if (!session) {
      if (request.method !== 'POST') return refuse(reply, 400, 'start an MCP session with an initialize request', 'MCP_SESSION');
      if (sessions.size >= MAX_SESSIONS) return refuse(reply, 503, 'too many MCP sessions, try again shortly', 'MCP_SESSIONS');
      const { Transport, createServer } = await loadSdk();
      const server = createServer(sourceFor(apikey));
      const transport: StreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server, keyDigest });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      session = { transport, server, keyDigest };
    }
    reply.hijack();
    await session.transport.handleRequest(request.raw, reply.raw, body);
  };

  for (const method of ['GET', 'POST', 'DELETE'] as const) app.route({ method, url: '/mcp', handler });
}
