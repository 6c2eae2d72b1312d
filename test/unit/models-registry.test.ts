import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createModelResolver } from '../../src/core/models/index.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';

describe('model registry', () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm(() => ({
      json: {
        structure: [
          {
            name: 'heading',
            type: 'string',
            selector: 'h1',
            attribute: null,
            transform: null,
            description: null,
            items: null,
            fields: null,
          },
        ],
      },
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    }));
  });
  afterAll(() => llm.close());
  const input = { sectionHtml: '<h1>Hi</h1>', pageHtml: '<h1>Hi</h1>', pageUrl: 'http://127.0.0.1/', selector: 'body', rule: null };

  it('resolves heuristic to the built-in model', async () => {
    const model = await createModelResolver({ models: {}, env: {} }).get('heuristic');
    expect(model.name).toBe('heuristic');
  });

  it('routes a named pagejson.json entry to its endpoint with the key from its apiKeyEnv', async () => {
    const resolver = createModelResolver({
      models: { mine: { baseURL: llm.baseURL, model: 'm-1', apiKeyEnv: 'MY_KEY' } },
      env: { MY_KEY: 'secret-1', PAGEJSON_SECRETS: 'MY_KEY' },
    });
    const model = await resolver.get('mine');
    expect(model).toBe(await resolver.get('mine'));
    await model.generate(input);
    const last = llm.requests.at(-1)!;
    expect(last.body.model).toBe('m-1');
    expect(last.headers.authorization).toBe('Bearer secret-1');
  });

  it('routes openai:<model> through OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    const model = await createModelResolver({ models: {}, env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test' } }).get(
      'openai:gpt-test',
    );
    await model.generate(input);
    const last = llm.requests.at(-1)!;
    expect(last.body.model).toBe('gpt-test');
    expect(last.headers.authorization).toBe('Bearer sk-test');
  });

  it('explains a missing key, and remembers no failure', async () => {
    const env: Record<string, string | undefined> = { PAGEJSON_SECRETS: 'MY_KEY' };
    const resolver = createModelResolver({ models: { mine: { baseURL: llm.baseURL, model: 'm-1', apiKeyEnv: 'MY_KEY' } }, env });
    await expect(resolver.get('mine')).rejects.toMatchObject({
      code: 'MODEL_NOT_FOUND',
      message: 'model mine needs an API key in MY_KEY, which is not set',
    });
    await expect(createModelResolver({ models: {}, env: {} }).get('openai:gpt-4o')).rejects.toMatchObject({
      code: 'MODEL_NOT_FOUND',
      message: 'model openai:gpt-4o needs OPENAI_API_KEY, which is not set',
    });
    env.MY_KEY = 'now-set';
    await expect(resolver.get('mine')).resolves.toMatchObject({ name: 'mine' });
  });

  it('reads no apiKeyEnv the operator has not allowed: a pull request cannot send GITHUB_TOKEN to its own host', async () => {
    // The attack: pagejson.json names a CI secret as the key of a model whose baseURL is the attacker's.
    const seen: IncomingHttpHeaders[] = [];
    const listener = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/v1`;
    const models = { evil: { baseURL, model: 'x', apiKeyEnv: 'GITHUB_TOKEN', maxRetries: 0 } };
    try {
      const refused = (await createModelResolver({ models, env: { GITHUB_TOKEN: 'ghp_ciSecretValue123' } })
        .get('evil')
        .catch((e: unknown) => e)) as PagejsonError;
      expect(refused).toBeInstanceOf(PagejsonError);
      expect(refused.code).toBe('MODEL_NOT_FOUND');
      expect(refused.message).toBe(
        'model evil: the environment variable GITHUB_TOKEN is not allowed (used in models.evil.apiKeyEnv): allow it with PAGEJSON_SECRETS=GITHUB_TOKEN or --allow-secret GITHUB_TOKEN',
      );
      expect(JSON.stringify({ message: refused.message, hint: refused.hint, context: refused.context })).not.toContain(
        'ghp_ciSecretValue123',
      );
      // Allowed for another name is not allowed for this one.
      await expect(
        createModelResolver({ models, env: { GITHUB_TOKEN: 'ghp_ciSecretValue123', PAGEJSON_SECRETS: 'SHOP_TOKEN' } }).get('evil'),
      ).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND', context: { reason: 'secret-not-allowed' } });
      expect(seen).toHaveLength(0);

      // The operator's choice: allowed, the key goes to the model's own server (and only there).
      const allowed = await createModelResolver({
        models,
        env: { GITHUB_TOKEN: 'ghp_ciSecretValue123', PAGEJSON_SECRETS: 'GITHUB_TOKEN' },
      }).get('evil');
      await allowed.generate(input).catch(() => undefined);
      expect(seen.map((headers) => headers.authorization)).toContain('Bearer ghp_ciSecretValue123');
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('rejects an unknown name with a hint listing the choices', async () => {
    const error = (await createModelResolver({
      models: { beta: { baseURL: llm.baseURL, model: 'x' }, alpha: { baseURL: llm.baseURL, model: 'y' } },
      env: {},
    })
      .get('gpt5')
      .catch((e: unknown) => e)) as PagejsonError;
    expect(error).toBeInstanceOf(PagejsonError);
    expect(error.code).toBe('MODEL_NOT_FOUND');
    expect(error.message).toBe('unknown model: gpt5');
    expect(error.hint).toContain('heuristic, alpha, beta, openai:<model>');
  });
});
