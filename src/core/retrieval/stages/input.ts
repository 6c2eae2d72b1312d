import { cacheKey } from '../../cache/index.js';
import { actionValuesKey, checkVariableValues, hasCallerVariables, resolveSourceUrl, type ApiConfig } from '../../config/index.js';
import { PagejsonError, wireText } from '../../shared/index.js';
import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';
import { MAX_BODY_BYTES, type RetrievalRequest } from '../types.js';

const dynamicConfigs = new WeakMap<ApiConfig, boolean>();
/** Whether callers send variables (the page variable is not theirs), computed once per loaded config object (the hit path is hot). */
export function isDynamicConfig(config: ApiConfig): boolean {
  let dynamic = dynamicConfigs.get(config);
  if (dynamic === undefined) dynamicConfigs.set(config, (dynamic = hasCallerVariables(config)));
  return dynamic;
}

function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  // Any Content-Type other than application/json (parameters such as charset aside) is a 415 (docs/wire.md).
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

const contentTypeError = (contentType: string | undefined) =>
  new PagejsonError('BODY_CONTENT_TYPE', wireText('BODY_CONTENT_TYPE'), { context: { contentType } });

/** A POST body's variables, in the body row's order: too large, declared as another type, not JSON, not an object, not declared JSON. */
function bodyValues(raw: Buffer | undefined, contentType: string | undefined): Record<string, unknown> {
  if (raw === undefined) throw new PagejsonError('BODY_TOO_LARGE', wireText('BODY_TOO_LARGE'));
  // A body declared as something else (a form, plain text) is the wrong type, not bad JSON: say which type is
  // accepted rather than that it does not parse (docs/decisions.md, "The first hour").
  if (contentType !== undefined && contentType.trim() !== '' && !isJsonContentType(contentType)) throw contentTypeError(contentType);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new PagejsonError('BODY_INVALID_JSON', wireText('BODY_INVALID_JSON'));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new PagejsonError('BODY_NOT_OBJECT', wireText('BODY_NOT_OBJECT'));
  if (!isJsonContentType(contentType)) throw contentTypeError(contentType);
  return parsed as Record<string, unknown>;
}

/** The variable values of a request without a body to read: a GET's query for a dynamic config, else none. */
function queryValues(request: RetrievalRequest, config: ApiConfig): Record<string, unknown> {
  // A static config ignores the query (cache-busting parameters and the like must not become "unknown variable").
  if (request.method === 'GET' && isDynamicConfig(config)) return { ...request.query };
  return {};
}

function checkVariables(ctx: RetrievalContext, values: Record<string, unknown>): void {
  const config = ctx.config;
  const problems = isDynamicConfig(config) || Object.keys(values).length > 0 ? checkVariableValues(config, values) : [];
  if (problems.length > 0) throw new PagejsonError(problems[0]!.code, problems[0]!.message, { context: { problems } });
  ctx.values = values;
}

/** A body's bytes up to one past the limit: `undefined` when it is longer. */
function bounded(raw: Buffer): Buffer | undefined {
  return raw.length > MAX_BODY_BYTES ? undefined : raw;
}

/**
 * read input: the body (POST), then the variables. A POST's body is read only now, after the key and endpoint
 * rows, so that it never decides an answer they decide first; a body over the limit is not read further.
 */
export function readInput(ctx: RetrievalContext, _env: RetrievalEnv): Promise<void> | undefined {
  const { body, method } = ctx.request;
  if (method !== 'POST' || body === undefined) checkVariables(ctx, queryValues(ctx.request, ctx.config));
  // An empty body is no body: a POST to a static config may send nothing or {}.
  else if ('raw' in body) checkVariables(ctx, body.raw.length > 0 ? bodyValues(bounded(body.raw), body.contentType) : {});
  else
    return body
      .read(MAX_BODY_BYTES)
      .then((raw) => checkVariables(ctx, raw === undefined || raw.length > 0 ? bodyValues(raw, body.contentType) : {}));
  return undefined;
}

const staticUrls = new WeakMap<ApiConfig, { sourceUrl: string; entryKey: string }>();

/**
 * The source URL of a config with these values, and the cache key made from it. A static config has one URL
 * and one key per revision: computed once per loaded config (the hit path is hot).
 */
export function sourceOf(config: ApiConfig, values: Record<string, unknown>): { sourceUrl: string; entryKey: string } {
  let known = isDynamicConfig(config) ? undefined : staticUrls.get(config);
  if (known === undefined) {
    const sourceUrl = resolveSourceUrl(config, values);
    // Values typed into the page by its actions make answers of their own (docs/actions.md).
    known = { sourceUrl, entryKey: cacheKey(config.apiId, config.revision, sourceUrl + actionValuesKey(config.actions, values)) };
    if (!isDynamicConfig(config)) staticUrls.set(config, known);
  }
  return known;
}

/** locate: the source URL, resolved once for the request (its load fetches this URL), and the cache key. */
export function locate(ctx: RetrievalContext, _env: RetrievalEnv): undefined {
  const found = sourceOf(ctx.config, ctx.values);
  ctx.sourceUrl = found.sourceUrl;
  ctx.entryKey = found.entryKey;
  return undefined;
}
