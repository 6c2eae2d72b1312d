import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiConfig } from '../../core/config/schema.js';
import { callerVariableNames, ownVariable } from '../../core/config/url-template.js';
import { endpointPrice } from '../../core/access/credits.js';
import { formatCredits } from '../../core/shared/credit-amounts.js';
import { describeEndpoint } from '../../core/catalog/endpoint-tools.js';
import { buildOpenApiDocument } from '../../core/catalog/openapi.js';
import type { Runtime } from '../../core/runtime.js';
import { dataJsonSchema } from '../../core/extract/engine/index.js';
import { errorEnvelope, MESSAGES } from '../errors.js';
import { inScope, keyScope } from '../key-scope.js';
import { JSON_UTF8 } from './external.js';

/**
 * What a key may call, on the wire: `GET /external` lists the endpoints in the key's scope, `GET
 * /external/{apiId}/schema` gives one endpoint's data JSON Schema (both in the `{data, errors}` envelope, with
 * the same key rows as a retrieval, and free), and `/openapi.json` with its reference page `/docs` describe
 * the endpoints the key may call (swagger-ui served from the package itself: it works offline).
 * `docs.enabled: false` turns the last two off.
 */
interface Listed {
  apiId: string;
  description: string;
  methods: string[];
  variables: Array<{ name: string; example: string | null; pattern: string | null }>;
  cached: boolean;
  credits: string;
  /** An answer from the cache (HIT or STALE): `credits.hit` in pagejson.json, else the same as `credits`. */
  hitCredits: string;
  /** A paginated endpoint (docs/pagination.md): `credits` is the price per page, at most this many pages. */
  maxPages?: number;
  /** The price in words: per call or per page, from the source and from the cache. */
  price: string;
  schema: string;
}

/** One endpoint as a key holder sees it: its source URL only when the operator turned `docs.sourceUrls` on. */
function listing(config: ApiConfig, sourceUrls: boolean, credits: { hit?: number | undefined }): Listed {
  const names = callerVariableNames(config);
  const price = endpointPrice(config, credits);
  return {
    apiId: config.apiId,
    description: describeEndpoint(config, { sourceUrls }),
    methods: names.length > 0 ? ['POST', 'GET'] : ['GET', 'POST'],
    variables: names.map((name) => ({
      name,
      example: ownVariable(config, name)?.example ?? null,
      pattern: ownVariable(config, name)?.pattern ?? null,
    })),
    cached: config.caching,
    credits: formatCredits(price.milliCredits),
    hitCredits: formatCredits(price.hitMilliCredits),
    ...(config.pagination ? { maxPages: config.pagination.maxPages } : {}),
    price: price.text,
    schema: `/external/${config.apiId}/schema`,
  };
}

export function registerCatalogRoutes(app: FastifyInstance, runtime: Runtime, options: { docs: boolean; serverUrl: () => string }): void {
  const send = (reply: FastifyReply, status: number, body: string) => reply.code(status).type(JSON_UTF8).send(body);

  /** The key rows of the wire table, then the endpoints in its scope (undefined: the refusal was sent). */
  async function scopeOf(request: FastifyRequest, reply: FastifyReply): Promise<string[] | null | undefined> {
    const header = request.headers.apikey;
    const verdict = await keyScope(runtime, Array.isArray(header) ? header[0] : header);
    if (verdict.ok) return verdict.scope;
    await send(reply, 401, errorEnvelope([{ message: verdict.message, code: verdict.code }]));
    return undefined;
  }

  const visible = (scope: string[] | null) => runtime.configs.list().filter((config) => inScope(scope, config));

  app.get('/external', async (request, reply) => {
    const scope = await scopeOf(request, reply);
    if (scope === undefined) return reply;
    const endpoints = visible(scope)
      .sort((a, b) => a.apiId.localeCompare(b.apiId))
      .map((config) => listing(config, runtime.settings.docs.sourceUrls, runtime.settings.credits));
    return send(reply, 200, JSON.stringify({ data: { endpoints }, errors: null }));
  });

  app.get<{ Params: { apiId: string } }>('/external/:apiId/schema', async (request, reply) => {
    const scope = await scopeOf(request, reply);
    if (scope === undefined) return reply;
    const config = visible(scope).find((candidate) => candidate.apiId === request.params.apiId);
    if (!config) return send(reply, 404, errorEnvelope([{ message: MESSAGES.noData, code: 'NO_DATA' }]));
    return send(reply, 200, JSON.stringify({ data: dataJsonSchema(config.structure), errors: null }));
  });

  if (!options.docs) return;
  // Only what the key may call, and source URLs only when the operator turned docs.sourceUrls on.
  app.get('/openapi.json', async (request, reply) => {
    const scope = await scopeOf(request, reply);
    if (scope === undefined) return reply;
    const document = buildOpenApiDocument(visible(scope), { serverUrl: options.serverUrl(), sourceUrls: runtime.settings.docs.sourceUrls });
    return send(reply.header('cache-control', 'no-store'), 200, JSON.stringify(document));
  });
  registerDocsPage(app, send);
}

/**
 * The reference page: swagger-ui from node_modules, no CDN; no inline script, so a strict CSP holds. The page
 * itself holds nothing: it asks for an API key, loads /openapi.json with it (kept in the page's memory only)
 * and sends it with "Try it out".
 */
function registerDocsPage(app: FastifyInstance, send: (reply: FastifyReply, status: number, body: string) => FastifyReply): void {
  const require = createRequire(import.meta.url);
  const assets = dirname(require.resolve('swagger-ui-dist/package.json'));
  const ASSETS: Record<string, string> = {
    'swagger-ui.css': 'text/css; charset=utf-8',
    'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  };
  const form =
    '<form id="pagejson-key" style="margin:2em auto;max-width:40em;font-family:sans-serif"><label for="pagejson-apikey">API key (the endpoints it may call are shown; it is sent as the apikey header and kept by this page only)</label><br><input id="pagejson-apikey" type="password" autocomplete="off" required style="width:30em"> <button type="submit">Show</button><p id="pagejson-key-error" role="alert"></p></form>';
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pagejson API reference</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body>${form}<div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;
  const csp =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";
  app.get('/docs', async (_request, reply) =>
    reply.header('content-security-policy', csp).header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8').send(page),
  );
  app.get('/docs/init.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(DOCS_SCRIPT));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', async (request, reply) => {
    const type = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
    if (!type) return send(reply, 404, errorEnvelope([{ message: MESSAGES.routeNotFound, code: 'ROUTE_NOT_FOUND' }]));
    return reply
      .header('cache-control', 'public, max-age=86400')
      .type(type)
      .send(await readFile(join(assets, request.params.file)));
  });
}

/** /docs/init.js: the key form, then swagger-ui over the document that key may read. */
const DOCS_SCRIPT = `(function () {
  var form = document.getElementById('pagejson-key');
  var input = document.getElementById('pagejson-apikey');
  var error = document.getElementById('pagejson-key-error');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var key = input.value.trim();
    error.textContent = '';
    fetch('/openapi.json', { headers: { apikey: key }, cache: 'no-store' })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) {
            error.textContent = (body && body.errors && body.errors[0] && body.errors[0].message) || 'the document could not be loaded (HTTP ' + response.status + ')';
            return;
          }
          form.hidden = true;
          window.ui = SwaggerUIBundle({ spec: body, dom_id: '#swagger-ui' });
          window.ui.preauthorizeApiKey('apikey', key);
        });
      })
      .catch(function (failure) {
        error.textContent = 'the document could not be loaded: ' + failure;
      });
  });
})();
`;
