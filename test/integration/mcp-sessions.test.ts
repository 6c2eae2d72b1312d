import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revokeKey } from '../../src/core/access/key-service.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { mcpSessionsOf } from '../../src/daemon/mcp/route.js';
import { MCP_SESSION_LIMITS } from '../../src/daemon/mcp/sessions.js';
import { JOB_TOOL_NAMES } from '../../src/daemon/mcp/job-tools.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * /mcp under one greedy key (issue 40, item 7): 998 `initialize` calls from one key used to take every session
 * the daemon keeps, and every other client got 503 until a restart. Sessions are capped per key, openings
 * counted per key and minute, idle sessions closed and a revoked key's sessions ended. The clock is the
 * runtime's, driven by hand.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
const servers: RunningServer[] = [];
const clients: Client[] = [];
let clock = Date.parse('2026-03-01T10:00:00Z');

beforeAll(async () => {
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

async function start(): Promise<RunningServer> {
  temp = await makeProject([pageConfig('static', `${site.origin}/daemon/echo?name=fixed`)]);
  const server = await startServer({
    project: temp.project,
    host: '127.0.0.1',
    port: 0,
    watch: false,
    app: { logger: false },
    runtime: { now: () => new Date(clock) },
  });
  servers.push(server);
  return server;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** One raw `initialize`, as the probe sent them. */
async function initialize(
  server: RunningServer,
  apikey: string,
): Promise<{ status: number; sessionId: string | null; retryAfter: string | null; body: string }> {
  const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, apikey }, body: INITIALIZE });
  return {
    status: response.status,
    sessionId: response.headers.get('mcp-session-id'),
    retryAfter: response.headers.get('retry-after'),
    body: await response.text(),
  };
}

async function end(server: RunningServer, apikey: string, sessionId: string): Promise<number> {
  return (await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { apikey, 'mcp-session-id': sessionId } })).status;
}

async function connect(server: RunningServer, apikey: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { apikey } } }));
  clients.push(client);
  return client;
}

describe('MCP sessions per key', () => {
  it('keeps room for other keys after one key sends a thousand initialize calls', async () => {
    const server = await start();
    const greedy = await issueKey(server.runtime.store, { account: 'greedy' });
    const statuses: number[] = [];
    const refusals = new Set<string>();
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => initialize(server, greedy.key)));
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 429) {
          refusals.add((JSON.parse(answer.body) as { errors: Array<{ code: string }> }).errors[0]!.code);
          expect(Number(answer.retryAfter)).toBeGreaterThan(0);
        }
      }
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(MCP_SESSION_LIMITS.perKey);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1000 - MCP_SESSION_LIMITS.perKey);
    expect([...refusals]).toEqual(['MCP_SESSIONS']);

    const other = await issueKey(server.runtime.store, { account: 'other' });
    const client = await connect(server, other.key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['static', ...JOB_TOOL_NAMES]);
  });

  it("counts every initialize toward the key's openings per minute", async () => {
    const server = await start();
    const { key } = await issueKey(server.runtime.store);
    // Opened and ended at once: never more than one open, so only the openings count.
    for (let i = 0; i < MCP_SESSION_LIMITS.opensPerMinute; i++) {
      const opened = await initialize(server, key);
      expect(opened.status).toBe(200);
      expect(await end(server, key, opened.sessionId!)).toBe(200);
    }
    const refused = await initialize(server, key);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).errors[0].message).toMatch(
      /^too many MCP sessions opened with this key \(30 a minute\); try again in \d+ s$/,
    );
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    clock += 60_000;
    expect((await initialize(server, key)).status).toBe(200);
  });

  it('closes a session left idle, so its key may open another in its place', async () => {
    const server = await start();
    const { key } = await issueKey(server.runtime.store);
    const client = await connect(server, key);
    const transport = (client as unknown as { transport: StreamableHTTPClientTransport }).transport;
    const sessionId = transport.sessionId!;
    clock += MCP_SESSION_LIMITS.idleMs - 60_000;
    // A request keeps it alive.
    expect((await client.listTools()).tools).toHaveLength(1 + JOB_TOOL_NAMES.length);
    clock += MCP_SESSION_LIMITS.idleMs - 60_000;
    expect((await client.listTools()).tools).toHaveLength(1 + JOB_TOOL_NAMES.length);
    clock += MCP_SESSION_LIMITS.idleMs;
    const late = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, apikey: key, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(late.status).toBe(404);
    expect(((await late.json()) as { errors: Array<{ message: string }> }).errors[0]!.message).toContain('sat idle too long');

    // Sessions abandoned without DELETE fill the key's places until they are idle long enough to be closed.
    const opened = await Promise.all(Array.from({ length: MCP_SESSION_LIMITS.perKey }, () => initialize(server, key)));
    expect(opened.map((answer) => answer.status)).toEqual(Array(MCP_SESSION_LIMITS.perKey).fill(200));
    const full = await initialize(server, key);
    expect(full.status).toBe(429);
    expect(JSON.parse(full.body).errors[0].message).toContain(`this key has ${MCP_SESSION_LIMITS.perKey} MCP sessions open`);
    clock += MCP_SESSION_LIMITS.idleMs;
    await mcpSessionsOf(server.app)!.sweep();
    expect(mcpSessionsOf(server.app)!.size).toBe(0);
    expect((await initialize(server, key)).status).toBe(200);
  });

  it('ends the sessions of a revoked key, open event stream included', async () => {
    const server = await start();
    const revoked = await issueKey(server.runtime.store, { account: 'revoked' });
    const kept = await issueKey(server.runtime.store, { account: 'kept' });
    const opened = await initialize(server, revoked.key);
    const sessionId = opened.sessionId!;
    const headers = { apikey: revoked.key, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    // The stream a client keeps open to hear about new tools.
    const stream = await fetch(`${server.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const client = await connect(server, kept.key);

    await revokeKey(server.runtime.store, revoked.id);
    await mcpSessionsOf(server.app)!.sweep();
    // The stream ends: the server closed the session.
    let ended = false;
    while (!ended) ended = (await reader.read()).done;
    expect(mcpSessionsOf(server.app)!.size).toBe(1);
    // The other key's session goes on.
    expect((await client.listTools()).tools).toHaveLength(1 + JOB_TOOL_NAMES.length);
  });
});
