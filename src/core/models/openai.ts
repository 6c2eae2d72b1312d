import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type OpenAI from 'openai';
import { z } from 'zod';
import { FieldSchema, type Field } from '../config/index.js';
import { PagejsonError } from '../shared/index.js';
import { webUrlsIn } from '../extract/index.js';
import { cleanHtml, DEFAULT_MAX_HTML_CHARS } from './html-cleaner.js';
import {
  dropNulls,
  FILL_SYSTEM_PROMPT,
  fillUserPrompt,
  GENERATE_SYSTEM_PROMPT,
  generateUserPrompt,
  retryPrompt,
  STRUCTURE_RESPONSE_SCHEMA,
} from './openai-prompts.js';
import type { FillInput, FillOutput, GenerateInput, GenerateOutput, Model, TokenUsage } from './types.js';
import { verifySelectors } from './verify-selectors.js';

/**
 * A model behind any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio,
 * OpenRouter). The `openai` package is imported on the first call, never at import time: most runs of the
 * CLI never talk to a model.
 */
export interface OpenAiModelOptions {
  /** The name configs refer to: a key of pagejson.json `models`, or `openai:<model>`. */
  name: string;
  baseURL?: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  /** Retries of failed HTTP calls inside the client (429, 5xx, connection), separate from the invalid-output retry. */
  maxRetries?: number;
  maxHtmlChars?: number;
}

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };
type ResponseFormat = { type: 'json_schema'; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };

const StructureReplySchema = z.object({ structure: z.array(FieldSchema).min(1, 'the structure needs at least one field') });

export function createOpenAiModel(options: OpenAiModelOptions): Model {
  let client: OpenAI | undefined;
  const validators = new WeakMap<object, ValidateFunction>();
  const maxHtmlChars = options.maxHtmlChars ?? DEFAULT_MAX_HTML_CHARS;

  async function getClient(): Promise<OpenAI> {
    if (!client) {
      const { default: OpenAIClient } = await import('openai');
      client = new OpenAIClient({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        timeout: options.timeoutMs ?? 120_000,
        maxRetries: options.maxRetries ?? 2,
      });
    }
    return client;
  }

  /** One completion: returns the reply text and adds its token usage to `usage`. */
  async function complete(messages: ChatMessage[], format: ResponseFormat, usage: TokenUsage): Promise<string> {
    const openai = await getClient();
    let completion;
    try {
      completion = await openai.chat.completions.create({ model: options.model, messages, response_format: format, temperature: 0 });
    } catch (error) {
      const status = (error as { status?: number }).status;
      throw new PagejsonError(
        'MODEL_FAILED',
        `model ${options.name} could not be reached: ${status ? `HTTP ${status} ` : ''}${(error as Error).message}`,
        {
          context: { model: options.name, status },
          hint: "check the model's baseURL and API key in pagejson.json `models` (or OPENAI_API_KEY / OPENAI_BASE_URL)",
          cause: error,
        },
      );
    }
    usage.promptTokens += completion.usage?.prompt_tokens ?? 0;
    usage.completionTokens += completion.usage?.completion_tokens ?? 0;
    return completion.choices[0]?.message?.content ?? '';
  }

  /**
   * Asks, checks, and asks once more with the problem when the reply is invalid: models do produce broken
   * JSON now and then, and one correction usually fixes it; a second failure is reported, not looped on.
   */
  async function askWithRetry<T>(
    messages: ChatMessage[],
    format: ResponseFormat,
    check: (reply: string) => { ok: true; value: T } | { ok: false; problem: string },
  ): Promise<{ value: T; usage: TokenUsage }> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let problem = '';
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const reply = await complete(messages, format, usage);
      const checked = check(reply);
      if (checked.ok) return { value: checked.value, usage };
      problem = checked.problem;
      messages = [...messages, { role: 'assistant', content: reply }, { role: 'user', content: retryPrompt(problem) }];
    }
    throw new PagejsonError('MODEL_FAILED', `model ${options.name} gave an invalid answer twice: ${problem}`, {
      context: { model: options.name, problem, usage },
      hint: 'try again, add a --rule that says what to extract, or choose another --model',
    });
  }

  async function generate(input: GenerateInput): Promise<GenerateOutput> {
    const cleanedHtml = cleanHtml(input.sectionHtml, { maxChars: maxHtmlChars });
    const messages: ChatMessage[] = [
      { role: 'system', content: GENERATE_SYSTEM_PROMPT },
      { role: 'user', content: generateUserPrompt({ cleanedHtml, pageUrl: input.pageUrl, selector: input.selector, rule: input.rule }) },
    ];
    const format: ResponseFormat = {
      type: 'json_schema',
      json_schema: { name: 'pagejson_structure', strict: true, schema: STRUCTURE_RESPONSE_SCHEMA as unknown as Record<string, unknown> },
    };
    const { value, usage } = await askWithRetry(messages, format, parseStructureReply);
    // Selectors are checked against the uncleaned section: that is what retrieval will see.
    const { structure } = verifySelectors(value, input.sectionHtml);
    return { structure, usage };
  }

  async function fill(input: FillInput): Promise<FillOutput> {
    const cleanedHtml = cleanHtml(input.sectionHtml, { maxChars: maxHtmlChars });
    let validate = validators.get(input.jsonSchema);
    if (!validate) {
      validate = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false, removeAdditional: false }).compile(input.jsonSchema);
      validators.set(input.jsonSchema, validate);
    }
    const checker = validate;
    const messages: ChatMessage[] = [
      { role: 'system', content: FILL_SYSTEM_PROMPT },
      { role: 'user', content: fillUserPrompt({ cleanedHtml, pageUrl: input.pageUrl, fields: input.fields, rule: input.rule }) },
    ];
    const format: ResponseFormat = { type: 'json_schema', json_schema: { name: 'pagejson_fill', strict: false, schema: input.jsonSchema } };
    const { value, usage } = await askWithRetry(messages, format, (reply) => {
      const parsed = parseJson(reply);
      if (!parsed.ok) return parsed;
      // A `url` that is not http(s) (a page can make the model answer `javascript:…`) is null, as it is when
      // extracted, rather than a reason to ask again and fail the retrieval (docs/security.md, `url` values).
      const values = webUrlsIn(input.fields, parsed.value, input.pageUrl);
      if (!checker(values)) {
        const first = checker.errors?.[0];
        return { ok: false, problem: `${first?.instancePath || '/'} ${first?.message ?? 'does not match the schema'}` };
      }
      return { ok: true, value: values as Record<string, unknown> };
    });
    return { values: value, usage };
  }

  return { name: options.name, generate, fill };
}

function parseJson(reply: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  // Some servers wrap JSON in a code fence even in JSON mode.
  const text = reply.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: `not JSON (${(error as Error).message})` };
  }
}

export function parseStructureReply(reply: string): { ok: true; value: Field[] } | { ok: false; problem: string } {
  const parsed = parseJson(reply);
  if (!parsed.ok) return parsed;
  const result = StructureReplySchema.safeParse(normalizeReply(dropNulls(parsed.value)));
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, problem: `${issue?.path.join('.') || 'reply'}: ${issue?.message ?? 'does not match the schema'}` };
  }
  const shapeProblem = result.data.structure.map((field) => containerProblem(field, field.name)).find(Boolean);
  if (shapeProblem) return { ok: false, problem: shapeProblem };
  return { ok: true, value: result.data.structure };
}

/** Empty transform lists mean "none"; the config format leaves them out. */
function normalizeReply(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeReply);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'transform' && Array.isArray(inner) && inner.length === 0) continue;
      out[key] = normalizeReply(inner);
    }
    return out;
  }
  return value;
}

/** Arrays need `fields` or `items`, objects need `fields`: rules zod's field schema leaves to config validation. */
function containerProblem(field: Field, path: string): string | undefined {
  if (field.type === 'array' && !field.fields && !field.items) return `${path}: an array needs fields or items`;
  if (field.type === 'object' && !field.fields) return `${path}: an object needs fields`;
  for (const child of field.fields ?? []) {
    const problem = containerProblem(child, `${path}.${child.name}`);
    if (problem) return problem;
  }
  return undefined;
}
