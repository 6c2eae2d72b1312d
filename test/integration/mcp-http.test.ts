import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { isJobTool, JOB_TOOL_NAMES } from '../../src/daemon/mcp/job-tools.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/** The daemon's /mcp (issue 12): the SDK's own client, a real daemon, endpoints as tools charged like /external. */
let site: FixtureSite;
let temp: TempProject;
const servers: RunningServer[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const server of servers.splice(0)) await server.close();
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

async function connect(server: RunningServer, apikey: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { apikey } } }));
  clients.push(client);
  return client;
}

describe('MCP over HTTP at /mcp', () => {
  it("lists the key's endpoints as typed tools, calls static and dynamic ones, and reports errors as tool errors", async () => {
    temp = await makeProject([
      pageConfig('static', `${site.origin}/daemon/echo?name=fixed`, { description: 'A fixed echo page' }),
      pageConfig('echo', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x', pattern: '^[a-z]{1,10}$' } } }),
      pageConfig('hidden', `${site.origin}/daemon/echo?name=h`),
    ]);
    const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    servers.push(server);
    const { key } = await issueKey(server.runtime.store, { scope: ['static', 'echo'], freeCredits: 1 });
    const client = await connect(server, key);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'static', ...JOB_TOOL_NAMES]);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(tools.find((tool) => tool.name === 'static')!.description).toBe('A fixed echo page');
    // No source URL in a tool's description unless the operator turns docs.sourceUrls on (the next test).
    expect(echo.description).toBe('Data extracted from a web page as JSON (title, kind).');
    expect(JSON.stringify(tools)).not.toContain(site.origin);
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', pattern: '^[a-z]{1,10}$' } },
    });
    expect(echo.outputSchema).toMatchObject({ type: 'object', properties: { title: {}, kind: {} } });

    const fixed = await client.callTool({ name: 'static', arguments: {} });
    expect(fixed.isError).toBeFalsy();
    expect(fixed.structuredContent).toEqual({ title: 'fixed', kind: 'echo' });
    const dynamic = await client.callTool({ name: 'echo', arguments: { name: 'hello' } });
    expect(dynamic.structuredContent).toEqual({ title: 'hello', kind: 'echo' });

    const bad = await client.callTool({ name: 'echo', arguments: { name: 'NOT OK' } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([{ type: 'text', text: 'variable name does not match ^[a-z]{1,10}$' }]);
    // Charged like /external: 1 credit bought two retrievals (0.4 each); the third is refused.
    const broke = await client.callTool({ name: 'echo', arguments: { name: 'again' } });
    expect(broke.content).toEqual([{ type: 'text', text: 'No credits left ⚠. Please buy more credits' }]);
    expect((await server.runtime.store.getAccount('default'))?.balance).toBe(200);
    // Out of the key's scope: no such tool.
    const hidden = await client.callTool({ name: 'hidden', arguments: {} });
    expect(hidden.content).toEqual([{ type: 'text', text: 'no data' }]);
  });

  it("names each tool's source URL pattern only when docs.sourceUrls is on", async () => {
    temp = await makeProject(
      [pageConfig('echo', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x' } } })],
      { docs: { sourceUrls: true } },
    );
    const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    servers.push(server);
    const { key } = await issueKey(server.runtime.store);
    const { tools } = await (await connect(server, key)).listTools();
    expect(tools.filter((tool) => !isJobTool(tool.name)).map((tool) => tool.description)).toEqual([
      `Data extracted from ${site.origin}/daemon/echo?name={name} as JSON (title, kind).`,
    ]);
  });

  it('refuses requests without a valid apikey, and announces a hot-reloaded config as a new tool', async () => {
    temp = await makeProject([pageConfig('static', `${site.origin}/daemon/echo?name=fixed`)]);
    const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    servers.push(server);
    const missing = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ data: null, errors: [{ message: 'Path: apikey -  Message: Required', code: 'KEY_MISSING' }] });
    const invalid = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { apikey: 'pj_nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(invalid.status).toBe(401);

    const { key } = await issueKey(server.runtime.store);
    const client = await connect(server, key);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['static', ...JOB_TOOL_NAMES]);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await temp.writeConfig(pageConfig('later', `${site.origin}/daemon/echo?name=later`));
    await server.reload();
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['later', 'static', ...JOB_TOOL_NAMES]);
  });
});
