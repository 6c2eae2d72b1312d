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
      env: { MY_KEY: 'secret-1' },
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
    const env: Record<string, string | undefined> = {};
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
