import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `pagejson generate` as a process with the model servers people run (docs/models.md): a server that refuses
 * json_schema and whose small model echoes the schema, a proxy that needs a header holding a secret, a server
 * that never answers. What a server accepted is remembered in the data dir for the next run.
 */
let site: FixtureSite;
let llm: FakeLlm;
const dirs: string[] = [];
const SECRET = 'proxy-s3cret-v4lue';

async function makeProject(model: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-generate-models-'));
  dirs.push(dir);
  const project = { fetch: { allowPrivateNetworks: true }, models: { small: { baseURL: llm.baseURL, model: 'small-1', ...model } } };
  await writeFile(join(dir, 'pagejson.json'), `${JSON.stringify(project, null, 2)}\n`);
  return dir;
}

const cli = (dir: string, args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], {
    cwd: dir,
    reject: false,
    env: {
      NO_COLOR: '1',
      CI: 'true',
      PAGEJSON_DATA_DIR: '',
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      PROXY_KEY: SECRET,
      PAGEJSON_SECRETS: 'PROXY_KEY',
    },
  });

const field = replyField;
const books = {
  structure: [
    field('books', 'array', 'article.product_pod', {
      fields: [
        field('title', 'string', 'h3 a', { attribute: 'title' }),
        field('price', 'number', '.price_color', { transform: ['number'] }),
      ],
    }),
  ],
};

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  llm = await startFakeLlm();
}, 300_000);

afterAll(async () => {
  await site?.close();
  await llm?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('pagejson generate with the servers people run', () => {
  it('falls back from a refused json_schema, corrects an echoed schema, sends the secret header, keeps the format for the next run and records every token', async () => {
    const dir = await makeProject({ headers: { 'x-proxy-key': 'Bearer ${PROXY_KEY}' }, maxRetries: 0 });
    llm.behave({ jsonSchema: 'refuse', refusal: 'llamacpp', usage: 'counted' });
    llm.requests.length = 0;
    llm.script([{ echoSchema: true }, { json: books }]);
    const first = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'books', '--model', 'small', '--yes', '--json']);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(llm.requests.at(-1)!.body.messages.at(-1)!.content).toMatch(/JSON Schema itself/);
    expect(llm.requests.every((request) => request.headers['x-proxy-key'] === `Bearer ${SECRET}`)).toBe(true);
    const saved = await readFile(join(dir, 'configs/books.json'), 'utf8');
    expect(JSON.parse(saved)).toMatchObject({ generated: { usage: llm.reported } });
    expect(`${first.stdout}${saved}`).not.toContain(SECRET);

    // Every answered call's tokens (the echo and its correction) are in the endpoint's usage.
    const usage = JSON.parse((await cli(dir, ['usage', '--api', 'books', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(usage).toMatchObject([
      { apiId: 'books', promptTokens: llm.reported.promptTokens, completionTokens: llm.reported.completionTokens },
    ]);

    const kept = JSON.parse(await readFile(join(dir, '.pagejson/model-formats.json'), 'utf8')) as unknown;
    expect(kept).toEqual({ version: 1, models: [{ baseURL: llm.baseURL, model: 'small-1', format: 'json_object' }] });
    // The next run (another process) asks json_object at once.
    llm.requests.length = 0;
    llm.script([{ json: books }]);
    const second = await cli(dir, [
      'generate',
      `${site.origin}/listing.html`,
      '--id',
      'books-again',
      '--model',
      'small',
      '--yes',
      '--json',
    ]);
    expect(second.exitCode).toBe(0);
    expect(llm.requests.map((request) => request.body.response_format?.type)).toEqual(['json_object']);
  });

  it('fails in bounded time saying the model timed out when the server never answers, and charges nothing', async () => {
    const dir = await makeProject({ timeoutMs: 300, maxRetries: 0 });
    llm.behave({});
    llm.script(() => ({ hang: true }));
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'hung', '--model', 'small', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('model small timed out: no answer within 300 ms (1 try)');
    expect(result.stderr).toMatch(/hint: .*models\.small\.timeoutMs/);
    expect(existsSync(join(dir, 'configs/hung.json'))).toBe(false);
    expect(JSON.parse((await cli(dir, ['credits', '--json'])).stdout).balance).toBe(100);
  });

  it('names an unset header variable without fetching or asking the model', async () => {
    const dir = await makeProject({ headers: { 'x-proxy-key': '${MISSING_PROXY_KEY}' } });
    llm.requests.length = 0;
    site.resetHits();
    // Allowed by the operator (issue 45), and unset: the "not set" error, before any fetch or model call.
    const result = await cli(dir, [
      '--allow-secret',
      'MISSING_PROXY_KEY',
      'generate',
      `${site.origin}/listing.html`,
      '--id',
      'unset',
      '--model',
      'small',
      '--yes',
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('MISSING_PROXY_KEY is not set (used in models.small.headers.x-proxy-key)');
    expect(llm.requests).toHaveLength(0);
    expect(site.hitCount('/listing.html')).toBe(0);
  });

  it('refuses a models entry with a malformed setting in validate', async () => {
    const dir = await makeProject({ timeoutMs: -1, headers: { 'content-length': '1' } });
    const result = await cli(dir, ['validate']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/models\.small\.timeoutMs/);
    expect(result.stdout).toMatch(/models headers cannot set content-length/);
  });

  it('records the tokens of a model that answered wrong twice, and charges nothing', async () => {
    const dir = await makeProject({ maxRetries: 0 });
    llm.behave({ usage: 'counted' });
    llm.script(['Sorry, I cannot see any data.', '{"structure": []}']);
    const result = await cli(dir, ['generate', `${site.origin}/listing.html`, '--id', 'wrong', '--model', 'small', '--yes']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('model small gave an invalid answer twice');
    expect(existsSync(join(dir, 'configs/wrong.json'))).toBe(false);
    expect(JSON.parse((await cli(dir, ['credits', '--json'])).stdout).balance).toBe(100);
    const usage = JSON.parse((await cli(dir, ['usage', '--api', 'wrong', '--json'])).stdout) as unknown;
    expect(usage).toMatchObject([
      { apiId: 'wrong', milliCredits: 0, promptTokens: llm.reported.promptTokens, completionTokens: llm.reported.completionTokens },
    ]);
  });
});
