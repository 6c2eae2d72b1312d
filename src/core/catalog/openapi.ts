import { MAX_VARIABLE_LENGTH, callerVariableNames, ownVariable, type ApiConfig } from '../config/index.js';
import { dataJsonSchema } from '../extract/index.js';
import { WIRE_TABLE, type WireCode } from '../shared/index.js';
import { PAGINATION_HEADERS, paginationText } from './pagination-doc.js';

/**
 * The OpenAPI 3.1 document of a project's endpoints (`pagejson openapi`): one path per config, GET for static
 * configs, POST with the variables as a JSON body (and GET with them as query parameters) for dynamic ones,
 * the `apikey` header as the security scheme, and every status and message of docs/wire.md. Schemas
 * are JSON Schema 2020-12, which OpenAPI 3.1 embeds as is.
 */
export interface OpenApiOptions {
  /** Where the daemon answers, e.g. http://127.0.0.1:8080. */
  serverUrl: string;
  title?: string;
  version?: string;
  /** Show each endpoint's source URL (`docs.sourceUrls`; default false). */
  sourceUrls?: boolean;
}

type Json = Record<string, unknown>;

// The statuses each operation documents; what each says comes from the one error table (docs/wire.md).
const ERROR_RESPONSES: Record<string, { description: string; only?: 'post' | 'dynamic' }> = {
  '400': { description: 'The request body or a variable is not acceptable (one error object per problem).', only: 'dynamic' },
  '401': { description: 'The apikey header is absent, or the key is unknown or revoked.' },
  '402': { description: 'The account balance is below the cost of the request.' },
  '403': { description: 'The endpoint is inactive.' },
  '404': { description: 'No endpoint with this apiId, or the key may not use it.' },
  '413': { description: 'The request body is over 16 KiB.', only: 'post' },
  '415': { description: 'A body was sent with a Content-Type other than application/json.', only: 'post' },
  '500': { description: 'An unexpected failure; details are in the daemon log under the X-Request-Id.' },
  '502': {
    description:
      'The source page could not be fetched, answered with a block page (a challenge, a captcha, access denied), its login failed, or nothing could be extracted from it.',
  },
  '503': {
    description:
      "The source answered 429 and is not asked again before the Retry-After header's seconds have passed (docs/block-pages.md), or the daemon is shutting down.",
  },
};

/** Rows the daemon answers around the retrieval (a malformed request, an unknown route): not an operation's own. */
const OUTSIDE_RETRIEVAL: ReadonlySet<WireCode> = new Set([
  'TIMEOUT',
  'ROUTE_NOT_FOUND',
  'BAD_REQUEST',
  'BAD_URL',
  'HEADERS_TOO_LARGE',
  'MISDIRECTED_REQUEST',
  'NOT_READY',
]);

/** The messages a caller of an endpoint can read with this status, as the error table writes them. */
function wireMessages(status: number): string[] {
  return WIRE_TABLE.filter((row) => row.status === status && !row.codes.some((code) => OUTSIDE_RETRIEVAL.has(code))).flatMap((row) => {
    const { kind, text } = row.message;
    if (kind === 'per-problem') return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    return [kind === 'prefixed' ? `${text}<reason>` : text];
  });
}

const SUCCESS_HEADERS: Json = {
  'X-Request-Id': { description: 'Identifies the request in the daemon log.', schema: { type: 'string' } },
  'X-Pagejson-Cache': {
    description: 'HIT, STALE (served, refreshed in the background), MISS or BYPASS (caching disabled).',
    schema: { type: 'string', enum: ['HIT', 'STALE', 'MISS', 'BYPASS'] },
  },
  Age: { description: 'Seconds since the cached data was fetched (cached answers only).', schema: { type: 'integer', minimum: 0 } },
  'X-Pagejson-Credits-Remaining': {
    description: "Balance of the key's account after this request, in credits.",
    schema: { type: 'string' },
  },
};

export function buildOpenApiDocument(configs: ApiConfig[], options: OpenApiOptions): Json {
  const schemas: Json = { ...ENVELOPE_SCHEMAS };
  const paths: Json = {};
  for (const config of [...configs].sort((a, b) => a.apiId.localeCompare(b.apiId))) {
    paths[`/external/${config.apiId}`] = pathItem(config, schemas, options.sourceUrls === true);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'pagejson endpoints',
      version: options.version ?? '1',
      description:
        'Web pages served as JSON. Every response is the envelope {"data": …, "errors": null} or {"data": null, "errors": [{"message": …}]}.',
    },
    // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with the OAS vocabulary, which
    // our schemas are; naming 2020-12 bare made reference renderers (swagger-ui) refuse the document.
    servers: [{ url: options.serverUrl }],
    security: [{ apikey: [] }],
    tags: [{ name: 'endpoints', description: 'One per config file in configs/.' }],
    paths,
    components: {
      securitySchemes: {
        apikey: { type: 'apiKey', in: 'header', name: 'apikey', description: 'An API key created with `pagejson keys create`.' },
      },
      schemas,
      responses: errorResponses(),
    },
  };
}

const ENVELOPE_SCHEMAS: Json = {
  Error: {
    type: 'object',
    required: ['message'],
    properties: {
      message: { type: 'string' },
      code: { type: 'string', description: 'Stable error code; an addition that callers may ignore.' },
    },
  },
  ErrorEnvelope: {
    type: 'object',
    required: ['data', 'errors'],
    properties: { data: { type: 'null' }, errors: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/Error' } } },
  },
};

function errorResponses(): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(ERROR_RESPONSES)) {
    responses[`Error${status}`] = {
      description: `${spec.description} Messages: ${wireMessages(Number(status))
        .map((m) => `"${m}"`)
        .join(', ')}.`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return responses;
}

/**
 * What an operation says about its endpoint. The source URL only when the operator turned `docs.sourceUrls`
 * on: it may name intranet hosts or carry a secret in its query string (docs/security.md).
 */
function operationText(config: ApiConfig, sourceUrls: boolean): { summary: string; description: string } {
  const summary = sourceUrls ? `${config.apiId}: data extracted from ${config.url}` : config.apiId;
  const fields = `Fields: ${config.structure.map((field) => field.name).join(', ')}.`;
  const description = [
    config.description ?? '',
    sourceUrls ? `Source: ${config.url} (scraper ${config.scraper}${config.session ? ', use session' : ''}).` : fields,
    config.caching
      ? 'Cached: fresh for 15 minutes by default, then refreshed in the background.'
      : 'Not cached: every request fetches the source page.',
    paginationText(config),
    config.status === 'inactive' ? 'This endpoint is inactive and answers 403.' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { summary, description };
}

/** One endpoint's path item; its data, envelope and variables schemas go into `schemas`. */
function pathItem(config: ApiConfig, schemas: Json, sourceUrls: boolean): Json {
  const names = callerVariableNames(config);
  const dynamic = names.length > 0;
  const { $schema: _ignored, ...dataSchema } = dataJsonSchema(config.structure) as Json;
  schemas[`${config.apiId}.data`] = dataSchema;
  schemas[`${config.apiId}.envelope`] = {
    type: 'object',
    required: ['data', 'errors'],
    properties: { data: { $ref: `#/components/schemas/${config.apiId}.data` }, errors: { type: 'null' } },
  };
  const { summary, description } = operationText(config, sourceUrls);
  const operation = (method: 'get' | 'post'): Json => ({
    operationId: `${method}_${config.apiId.replace(/-/g, '_')}`,
    summary,
    description,
    tags: ['endpoints'],
    ...(config.status === 'inactive' ? { deprecated: true } : {}),
    responses: responsesFor(config.apiId, method, dynamic, config.pagination !== undefined),
  });
  if (!dynamic) return { get: operation('get') };
  const variableSchemas: Json = {};
  for (const name of names) variableSchemas[name] = variableSchema(config, name);
  schemas[`${config.apiId}.variables`] = { type: 'object', required: names, additionalProperties: false, properties: variableSchemas };
  return {
    post: {
      ...operation('post'),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${config.apiId}.variables` } } },
      },
    },
    get: {
      ...operation('get'),
      description: `${description} The variables may also be sent as query parameters.`,
      parameters: names.map((name) => ({ name, in: 'query', required: true, schema: variableSchema(config, name) })),
    },
  };
}

function variableSchema(config: ApiConfig, name: string): Json {
  const variable = ownVariable(config, name);
  return {
    type: 'string',
    maxLength: MAX_VARIABLE_LENGTH,
    // Values must match the whole pattern (url-template.ts wraps it the same way).
    ...(variable?.pattern !== undefined ? { pattern: `^(?:${variable.pattern})$` } : {}),
    ...(variable?.description ? { description: variable.description } : {}),
    ...(variable ? { examples: [variable.example] } : {}),
  };
}

function responsesFor(apiId: string, method: 'get' | 'post', dynamic: boolean, paginated: boolean): Json {
  const out: Json = {
    '200': {
      description: 'The extracted data in the configured structure.',
      headers: paginated ? { ...SUCCESS_HEADERS, ...PAGINATION_HEADERS } : SUCCESS_HEADERS,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${apiId}.envelope` } } },
    },
  };
  for (const [status, spec] of Object.entries(ERROR_RESPONSES)) {
    if (spec.only === 'post' && method !== 'post') continue;
    if (spec.only === 'dynamic' && !dynamic) continue;
    out[status] = { $ref: `#/components/responses/Error${status}` };
  }
  return out;
}
