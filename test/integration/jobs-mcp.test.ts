import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Jobs through the daemon's /mcp (issue 50): the SDK's own client starts a job with `startJob`, follows it with
 * `getJob` and reads its lines a page at a time with `getJobResults`, as the key that opened the session; the
 * job is charged like one started with `POST /jobs`. Another key's job, an endpoint out of scope and a body
 * that is not a job come back as tool errors with the wire's words.
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;
const clients: Client[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  const item = {
    apiId: 'item',
    url: `${site.origin}/jobs/item?id={{id}}`,
    caching: false,
    variables: { id: { example: '1' } },
    structure: [{ name: 'title', type: 'string' as const, selector: 'h1' }],
  };
  temp = await makeProject([item, { ...item, apiId: 'other' }], { jobs: { minDelayMs: 0 } });
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.close();
  await temp?.cleanup();
  await site?.close();
});

async function connect(apikey: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { apikey } } }));
  clients.push(client);
  return client;
}

interface Page {
  lines: Array<{ index: number; outcome: string; data: unknown; errors: Array<{ code: string }> | null }>;
  next: number | null;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const answer = await client.callTool({ name, arguments: args });
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return answer.structuredContent as T;
}

async function refusal(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const answer = await client.callTool({ name, arguments: args });
  expect(answer.isError).toBe(true);
  return (answer.content as Array<{ text: string }>)[0]!.text;
}

describe('job tools at /mcp', () => {
  it('starts a job, follows it to its end and pages through its lines; the items are charged once', async () => {
    const { key, account } = await issueKey(server.runtime.store, { freeCredits: 10, account: 'agent', scope: ['item'] });
    const client = await connect(key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['item', 'startJob', 'getJob', 'getJobResults']);

    const started = await call<{ id: string; state: string; total: number }>(client, 'startJob', {
      apiId: 'item',
      inputs: [{ id: 'a' }, { id: '404' }, { nope: 'x' }, { id: 'b' }],
    });
    expect(started).toMatchObject({ state: 'queued', total: 4 });
    const job = await vi.waitFor(
      async () => {
        const view = await call<{ state: string; finishedAt?: string }>(client, 'getJob', { id: started.id });
        if (!view.finishedAt) throw new Error(`still ${view.state}`);
        return view;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(job).toMatchObject({ id: started.id, apiId: 'item', state: 'done', total: 4, done: 2, failed: 1, skipped: 1, credits: 0.8 });
    expect(job).not.toHaveProperty('keyId');
    expect((await server.runtime.store.getAccount(account))!.balance).toBe(10_000 - 800);

    const first = await call<Page>(client, 'getJobResults', { id: started.id, limit: 3 });
    expect([first.lines.length, first.next]).toEqual([3, 3]);
    const rest = await call<Page>(client, 'getJobResults', { id: started.id, offset: first.next, limit: 3 });
    expect([rest.lines.length, rest.next]).toEqual([1, null]);
    const all = [...first.lines, ...rest.lines];
    expect(new Set(all.map((line) => line.index))).toEqual(new Set([0, 1, 2, 3]));
    expect(all.find((line) => line.index === 0)).toMatchObject({ outcome: 'data', data: { title: 'Item a' } });
    const failed = await call<Page>(client, 'getJobResults', { id: started.id, errorsOnly: true });
    expect(failed.lines.map((line) => line.errors![0]!.code).sort()).toEqual(['FETCH_STATUS', 'VARIABLE_MISSING']);
  });

  it("refuses another key's job, an endpoint out of scope and a body that is not a job, in the wire's words", async () => {
    const owner = await issueKey(server.runtime.store, { account: 'owner' });
    const stranger = await issueKey(server.runtime.store, { account: 'stranger', scope: ['item'] });
    const mine = await call<{ id: string }>(await connect(owner.key), 'startJob', { apiId: 'other', inputs: [{ id: 'z' }] });
    const client = await connect(stranger.key);
    expect(await refusal(client, 'getJob', { id: mine.id })).toBe('no such job');
    expect(await refusal(client, 'getJobResults', { id: mine.id })).toBe('no such job');
    expect(await refusal(client, 'getJob', { id: '../../state' })).toBe('no such job');
    expect(await refusal(client, 'startJob', { apiId: 'other', inputs: [{ id: 'z' }] })).toBe('no data');
    expect(await refusal(client, 'startJob', { apiId: 'item', inputs: [{ id: 'z' }], urls: ['x'] })).toBe(
      'the job takes one input source, not inputs and urls',
    );
    const own = await call<{ id: string }>(client, 'startJob', { apiId: 'item', inputs: [] });
    expect(await refusal(client, 'getJobResults', { id: own.id, limit: 1_000 })).toBe('limit must be a whole number from 1 to 100');
  });
});
