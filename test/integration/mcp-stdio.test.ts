import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/** `pagejson mcp` over stdio (issue 12), driven by the SDK's own client, in-process and through a daemon. */
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.child;
    serve = undefined;
  }
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

async function connect(env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp'],
    cwd: temp.root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += String(chunk)));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr };
}

const configs = () => [
  pageConfig('static', `${site.origin}/daemon/echo?name=fixed`),
  pageConfig('echo', `${site.origin}/daemon/echo?name={{ name }}`, { variables: { name: { example: 'x', pattern: '^[a-z]{1,10}$' } } }),
];

describe('pagejson mcp (stdio)', () => {
  it('in-process without a daemon: lists typed tools, calls them, bad variables are tool errors', async () => {
    temp = await makeProject(configs());
    const { client, stderr } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'static']);
    expect(tools[0]!.inputSchema).toMatchObject({ required: ['name'], properties: { name: { pattern: '^[a-z]{1,10}$' } } });
    // Source URLs as the daemon's /mcp shows them: not without docs.sourceUrls.
    expect(tools[0]!.description).toBe('Data extracted from a web page as JSON (title, kind).');
    expect((await client.callTool({ name: 'echo', arguments: { name: 'hi' } })).structuredContent).toEqual({ title: 'hi', kind: 'echo' });
    const bad = await client.callTool({ name: 'echo', arguments: { name: '..' } });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([{ type: 'text', text: 'variable name does not match ^[a-z]{1,10}$' }]);
    expect(stderr()).toContain('in-process (no daemon running');

    // A config saved while the agent is connected is announced and becomes a tool.
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await temp.writeConfig(pageConfig('later', `${site.origin}/daemon/echo?name=later`));
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'later', 'static']);
  });

  it('through the running daemon with PAGEJSON_API_KEY: calls are charged like /external', async () => {
    temp = await makeProject(configs());
    serve = await spawnServe(temp.root);
    const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root });
    const key = JSON.parse((await cli('keys', 'create', '--json')).stdout).key as string;
    const { client, stderr } = await connect({ PAGEJSON_API_KEY: key });
    expect((await client.callTool({ name: 'static', arguments: {} })).structuredContent).toEqual({ title: 'fixed', kind: 'echo' });
    expect(stderr()).toContain(`through the daemon at ${serve.url}`);
    expect(JSON.parse((await cli('credits', '--json')).stdout).balance).toBe(99.6);
  });
});
