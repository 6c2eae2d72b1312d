import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { DEFAULT_MAX_INPUT_TOKENS, DEFAULT_MODEL_MAX_RETRIES } from '../config/index.js';
import { isPagejsonError, PagejsonError } from '../shared/index.js';
import { webUrlsIn } from '../extract/index.js';
import { cleanHtml } from './html-cleaner.js';
import { createModelCaller, type ChatMessage, type ResponseFormat } from './openai-call.js';
import { createFormatMemory, isFormatRefusal, nextFormat, type FormatMemory, type FormatMode } from './openai-formats.js';
import {
  FILL_SYSTEM_PROMPT,
  fillUserPrompt,
  GENERATE_SYSTEM_PROMPT,
  generateUserPrompt,
  MAX_ECHOED_REPLY_CHARS,
  retryPrompt,
  schemaInstruction,
  STRUCTURE_RESPONSE_SCHEMA,
} from './openai-prompts.js';
import {
  ECHOED_SCHEMA_PROBLEM,
  FENCED_PROBLEM,
  isEchoedSchema,
  isFencedOnly,
  parseJson,
  parseStructureReply,
  type Checked,
} from './openai-replies.js';
import { generateView } from './openai-view.js';
import type { FillInput, FillOutput, GenerateInput, GenerateOutput, Model, TokenUsage } from './types.js';
import { verifySelectors } from './verify-selectors.js';

/**
 * A model behind any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, LM Studio, llama.cpp,
 * OpenRouter and proxies in front of them): docs/models.md. Every request stays within `maxInputTokens`;
 * the response format degrades from json_schema to json_object to a plain prompt as the server refuses them
 * (openai-formats.ts); an invalid reply is corrected once with its problem said.
 */
export interface OpenAiModelOptions {
  /** The name configs refer to: a key of pagejson.json `models`, or `openai:<model>`. */
  name: string;
  baseURL?: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs?: number | undefined;
  /** Retries of failed HTTP calls inside the client (429, 5xx, connection, timeout), separate from the invalid-output retry. */
  maxRetries?: number | undefined;
  temperature?: number | undefined;
  /** Bytes an answer may have (default 4 MiB). */
  maxAnswerBytes?: number | undefined;
  /** Resolved header values (secrets in), sent with every call. */
  headers?: Readonly<Record<string, string>> | undefined;
  maxInputTokens?: number | undefined;
  /** What each server accepted as a response format (default: this process's memory only). */
  formats?: FormatMemory | undefined;
}

/** Tokens are estimated at 3 characters each: HTML and JSON tokenize denser than prose (about 3 to 4). */
export const CHARS_PER_TOKEN = 3;
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Room kept for the correction turn (the reply repeated, cut, and the problem). */
const CORRECTION_RESERVE_CHARS = MAX_ECHOED_REPLY_CHARS + 600;

interface Ask<T> {
  system: string;
  user: string;
  schemaName: string;
  schema: Record<string, unknown>;
  strict: boolean;
  check: (reply: string) => Checked<T>;
}

export function createOpenAiModel(options: OpenAiModelOptions): Model {
  const caller = createModelCaller({
    name: options.name,
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    model: options.model,
    timeoutMs: options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MODEL_MAX_RETRIES,
    temperature: options.temperature ?? 0,
    headers: options.headers,
    maxAnswerBytes: options.maxAnswerBytes,
  });
  const formats = options.formats ?? createFormatMemory(undefined);
  const server = options.baseURL ?? 'https://api.openai.com/v1';
  const budgetChars = (options.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS) * CHARS_PER_TOKEN;
  const validators = new WeakMap<object, ValidateFunction>();

  /** Characters the user message may take: the budget less the system prompt, the schema and the correction's room. */
  const userRoom = (system: string, schema: Record<string, unknown>): number =>
    Math.max(1_000, budgetChars - system.length - JSON.stringify(schema).length - schemaInstruction({}).length - CORRECTION_RESERVE_CHARS);

  async function ask<T>(request: Ask<T>): Promise<{ value: T; usage: TokenUsage }> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let mode: FormatMode = (await formats.get(server, options.model)) ?? 'json_schema';
    let correction: ChatMessage[] = [];
    let problem = '';
    let fenced: { value: T } | undefined;
    for (let attempt = 1; attempt <= 2;) {
      let reply: string;
      try {
        reply = await caller.complete(messagesFor(request, mode, correction), formatFor(request, mode), usage);
      } catch (error) {
        const next = nextFormat(mode);
        // A refused format costs no tokens and is no attempt: the next format down is asked at once.
        if (next && isPagejsonError(error) && isFormatRefusal({ status: error.context.status, message: error.message })) {
          mode = next;
          continue;
        }
        // The correction of a fenced reply failed: the fenced reply's data stands.
        if (fenced) return { value: fenced.value, usage };
        throw withUsage(error, usage);
      }
      await formats.set(server, options.model, mode);
      const checked = request.check(reply);
      // A bare fenced block is corrected once like any reply that is not the structure, but its data is kept: a
      // model that fences again (or fails the correction) still gives it, rather than failing (docs/models.md).
      if (checked.ok && attempt === 1 && isFencedOnly(reply)) fenced = { value: checked.value };
      else if (checked.ok) return { value: checked.value, usage };
      problem = checked.ok ? FENCED_PROBLEM : checked.problem;
      correction = [
        { role: 'assistant', content: reply.length > MAX_ECHOED_REPLY_CHARS ? `${reply.slice(0, MAX_ECHOED_REPLY_CHARS)}…` : reply },
        { role: 'user', content: retryPrompt(problem) },
      ];
      attempt += 1;
    }
    if (fenced) return { value: fenced.value, usage };
    throw new PagejsonError('MODEL_FAILED', `model ${options.name} gave an invalid answer twice: ${problem}`, {
      context: { model: options.name, problem, usage },
      hint: 'try again, add a --rule that says what to extract, or choose another --model',
    });
  }

  async function generate(input: GenerateInput): Promise<GenerateOutput> {
    // The heuristic's analysis, made once: its proposal is where the model starts, its regions what it sees.
    const system = GENERATE_SYSTEM_PROMPT;
    const schema = STRUCTURE_RESPONSE_SCHEMA as unknown as Record<string, unknown>;
    const header = generateUserPrompt({
      proposal: '',
      page: '',
      shows: 'regions',
      pageUrl: input.pageUrl,
      selector: input.selector,
      rule: input.rule,
    });
    const view = generateView(input, userRoom(system, schema) - header.length);
    const user = generateUserPrompt({ ...view, pageUrl: input.pageUrl, selector: input.selector, rule: input.rule });
    const { value, usage } = await ask({
      system,
      user,
      schemaName: 'pagejson_structure',
      schema,
      strict: true,
      check: (reply) => parseStructureReply(reply, schema),
    });
    // Selectors are checked against the uncleaned section: that is what retrieval will see.
    const { structure, notes } = verifySelectors(value, input.sectionHtml);
    return { structure, usage, ...(notes.length > 0 ? { fieldNotes: notes } : {}) };
  }

  async function fill(input: FillInput): Promise<FillOutput> {
    let validate = validators.get(input.jsonSchema);
    if (!validate) {
      validate = new Ajv2020({ strict: false, allErrors: true, coerceTypes: false, removeAdditional: false }).compile(input.jsonSchema);
      validators.set(input.jsonSchema, validate);
    }
    const checker = validate;
    const header = fillUserPrompt({ cleanedHtml: '', pageUrl: input.pageUrl, fields: input.fields, rule: input.rule });
    const cleanedHtml = cleanHtml(input.sectionHtml, { maxChars: userRoom(FILL_SYSTEM_PROMPT, input.jsonSchema) - header.length });
    const names = input.fields.map((field) => field.name);
    const { value, usage } = await ask({
      system: FILL_SYSTEM_PROMPT,
      user: fillUserPrompt({ cleanedHtml, pageUrl: input.pageUrl, fields: input.fields, rule: input.rule }),
      schemaName: 'pagejson_fill',
      schema: input.jsonSchema,
      strict: false,
      check: (reply): Checked<Record<string, unknown>> => {
        const parsed = parseJson(reply);
        if (!parsed.ok) return parsed;
        if (isEchoedSchema(parsed.value, input.jsonSchema, names)) return { ok: false, problem: ECHOED_SCHEMA_PROBLEM };
        // A `url` that is not http(s) (a page can make the model answer `javascript:…`) is null, as it is when
        // extracted, rather than a reason to ask again and fail the retrieval (docs/security.md, `url` values).
        const values = webUrlsIn(input.fields, parsed.value, input.pageUrl);
        if (!checker(values)) {
          const first = checker.errors?.[0];
          return { ok: false, problem: `${first?.instancePath || '/'} ${first?.message ?? 'does not match the schema'}` };
        }
        return { ok: true, value: values as Record<string, unknown> };
      },
    });
    return { values: value, usage };
  }

  return { name: options.name, generate, fill };
}

/** The messages of one call: without structured outputs, the schema is said in the system prompt. */
function messagesFor(request: Ask<unknown>, mode: FormatMode, correction: ChatMessage[]): ChatMessage[] {
  const system = mode === 'json_schema' ? request.system : `${request.system}\n\n${schemaInstruction(request.schema)}`;
  return [{ role: 'system', content: system }, { role: 'user', content: request.user }, ...correction];
}

function formatFor(request: Ask<unknown>, mode: FormatMode): ResponseFormat | undefined {
  if (mode === 'json_schema')
    return { type: 'json_schema', json_schema: { name: request.schemaName, strict: request.strict, schema: request.schema } };
  return mode === 'json_object' ? { type: 'json_object' } : undefined;
}

/** The tokens spent before a call failed go with its error: usage records them though nothing is charged. */
function withUsage(error: unknown, usage: TokenUsage): unknown {
  if (isPagejsonError(error)) error.context.usage = usage;
  return error;
}
