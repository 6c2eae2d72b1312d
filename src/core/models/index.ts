import { didYouMean, isPagejsonError, PagejsonError } from '../shared/index.js';
import { allowedSecretNames, resolveSecretRecord, secretNotAllowedError, type ModelEndpoint } from '../config/index.js';
import { createFormatMemory } from './openai-formats.js';
import type { Model } from './types.js';

export type { Model, GenerateInput, GenerateOutput, FillInput, FillOutput, TokenUsage } from './types.js';

/**
 * The model registry. A config names its model; this turns the name into a Model:
 * - `heuristic`: built in, offline, the default;
 * - a key of pagejson.json `models`: an OpenAI-compatible endpoint (baseURL, model, apiKeyEnv);
 * - `openai:<model>`: OpenAI itself, or whatever OPENAI_BASE_URL points at, keyed by OPENAI_API_KEY.
 * Models are created on first use and kept, so a daemon builds one client per model, not per request.
 */
export const HEURISTIC_MODEL = 'heuristic';
export const OPENAI_PREFIX = 'openai:';

export interface ModelResolverOptions {
  models: Record<string, ModelEndpoint>;
  env: Record<string, string | undefined>;
  /** Timeout of one model call when the model's entry sets none; tests make it short. */
  timeoutMs?: number;
  maxRetries?: number;
  /** The project's data dir: what each server accepted as a response format is remembered there. */
  dataDir?: string | undefined;
}

export interface ModelResolver {
  get(name: string): Promise<Model>;
  /** Names a user can pick from: heuristic, every configured entry, and the openai: form. */
  choices(): string[];
}

// Local servers (Ollama, LM Studio, vLLM) accept any key, but the openai client refuses an empty one.
const PLACEHOLDER_API_KEY = 'not-needed';

interface OpenAiEndpoint {
  name: string;
  baseURL: string | undefined;
  model: string;
  apiKey: string;
  headers?: Record<string, string>;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  maxAnswerBytes?: number | undefined;
  temperature?: number | undefined;
  maxInputTokens?: number | undefined;
}

/** A `models` entry's own settings; its headers' `${NAME}` resolved here (an unset one named, its value never). */
function entrySettings(
  name: string,
  entry: ModelEndpoint,
  env: Record<string, string | undefined>,
): Omit<OpenAiEndpoint, 'name' | 'baseURL' | 'model' | 'apiKey'> {
  let headers: Record<string, string> | undefined;
  try {
    headers = entry.headers ? resolveSecretRecord(entry.headers, env, `models.${name}.headers`) : undefined;
  } catch (error) {
    if (!isPagejsonError(error)) throw error;
    throw new PagejsonError('MODEL_NOT_FOUND', `model ${name}: ${error.message}`, {
      context: error.context,
      ...(error.hint ? { hint: error.hint } : {}),
    });
  }
  return {
    ...(headers ? { headers } : {}),
    timeoutMs: entry.timeoutMs,
    maxRetries: entry.maxRetries,
    maxAnswerBytes: entry.maxAnswerBytes,
    temperature: entry.temperature,
    maxInputTokens: entry.maxInputTokens,
  };
}

/**
 * A `models` entry's API key, read from the variable its `apiKeyEnv` names. That name comes from pagejson.json,
 * which a pull request can change together with `baseURL`, so it is held to the operator's allow-list of
 * secrets as `${NAME}` is (PAGEJSON_SECRETS, `--allow-secret`; issue 45): checked before the variable is read.
 */
function entryApiKey(name: string, entry: ModelEndpoint, env: Record<string, string | undefined>): string {
  const variable = entry.apiKeyEnv;
  if (!variable) return PLACEHOLDER_API_KEY;
  if (!allowedSecretNames(env).has(variable)) {
    const refused = secretNotAllowedError(variable, `models.${name}.apiKeyEnv`);
    throw new PagejsonError('MODEL_NOT_FOUND', `model ${name}: ${refused.message}`, {
      context: { model: name, apiKeyEnv: variable, reason: 'secret-not-allowed' },
      ...(refused.hint ? { hint: refused.hint } : {}),
    });
  }
  const value = Object.hasOwn(env, variable) ? env[variable] : undefined;
  if (!value) {
    throw new PagejsonError('MODEL_NOT_FOUND', `model ${name} needs an API key in ${variable}, which is not set`, {
      context: { model: name, apiKeyEnv: variable },
      hint: `export ${variable}=<key>, or remove apiKeyEnv from models.${name} in pagejson.json for a server without keys`,
    });
  }
  return value;
}

export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const created = new Map<string, Promise<Model>>();
  const formats = createFormatMemory(options.dataDir);

  function choices(): string[] {
    return [HEURISTIC_MODEL, ...Object.keys(options.models).sort(), `${OPENAI_PREFIX}<model>`];
  }

  async function create(name: string): Promise<Model> {
    if (name === HEURISTIC_MODEL) {
      const { createHeuristicModel } = await import('./heuristic/index.js');
      return createHeuristicModel();
    }
    const entry = Object.hasOwn(options.models, name) ? options.models[name] : undefined;
    if (entry) {
      const apiKey = entryApiKey(name, entry, options.env);
      return openAiModel({ name, baseURL: entry.baseURL, model: entry.model, apiKey, ...entrySettings(name, entry, options.env) });
    }
    if (name.startsWith(OPENAI_PREFIX) && name.length > OPENAI_PREFIX.length) {
      const baseURL = options.env.OPENAI_BASE_URL || undefined;
      const apiKey = options.env.OPENAI_API_KEY || (baseURL ? PLACEHOLDER_API_KEY : undefined);
      if (!apiKey) {
        throw new PagejsonError('MODEL_NOT_FOUND', `model ${name} needs OPENAI_API_KEY, which is not set`, {
          context: { model: name },
          hint: 'export OPENAI_API_KEY=<key> (and OPENAI_BASE_URL for another OpenAI-compatible server), or add the endpoint to `models` in pagejson.json',
        });
      }
      return openAiModel({ name, baseURL, model: name.slice(OPENAI_PREFIX.length), apiKey });
    }
    throw new PagejsonError('MODEL_NOT_FOUND', `unknown model: ${name}${didYouMean(name, choices())}`, {
      context: { model: name, choices: choices() },
      hint: `choose one of: ${choices().join(', ')} (named models are the \`models\` entries of pagejson.json)`,
    });
  }

  async function openAiModel(endpoint: OpenAiEndpoint): Promise<Model> {
    const { createOpenAiModel } = await import('./openai.js');
    return createOpenAiModel({
      ...endpoint,
      timeoutMs: endpoint.timeoutMs ?? options.timeoutMs,
      maxRetries: endpoint.maxRetries ?? options.maxRetries,
      formats,
    });
  }

  return {
    choices,
    get(name: string): Promise<Model> {
      let model = created.get(name);
      if (!model) {
        model = create(name);
        created.set(name, model);
        // A failed creation (missing key) is not remembered: the user may fix the environment and retry.
        model.catch(() => created.delete(name));
      }
      return model;
    },
  };
}
export { isNarrowed } from './heuristic/verify.js';
