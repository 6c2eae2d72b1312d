import { relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { FIELD_TYPES } from '../../core/config/constants.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { checkVariableValues, exampleValues, urlPlaces } from '../../core/config/url-template.js';
import { describeChanges } from '../../core/edit/describe-changes.js';
import { openConfigForEdit, problemsOf, saveEditedConfig } from '../../core/edit/config-file.js';
import { applyEdits, type EditOperation } from '../../core/edit/operations.js';
import { listRevisions } from '../../core/edit/revisions.js';
import { exampleRequest } from '../../core/config/example-request.js';
import { describeEndpoint } from '../../core/catalog/endpoint-tools.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { endpointStatus } from '../../core/access/state-service.js';
import { emptyTotals, totalsBy } from '../../core/access/usage-series.js';
import { endpointPrice } from '../../core/access/credits.js';
import { ApiIdParam, parse, type DashboardApiContext, shownProblems } from './api-common.js';
import { actionsView } from './actions-view.js';
import { paginationView } from './pagination-view.js';
import { withAccessShown } from '../../core/config/access-display.js';
import { refuseLiteralCredentials } from '../../core/edit/access-edit.js';
import { refuseLiteralLoginCredentials } from '../../core/edit/login-edit.js';
import { withLoginShown } from '../../core/config/login-display.js';

/**
 * Endpoints: the list (the dashboard fields of docs/wire.md, health, the last 24 hours), one endpoint with its URL
 * places and revisions, "try it", and edits. An edit is a list of the same operations `pagejson edit` takes
 * (`--add`, `--remove`, `--rename`, `--move`, `--set`, `--var`, `--unvar`), applied by the same code, checked
 * by the same rules as `validate`, written as a new revision and reloaded at once.
 */
const text = (max: number) => z.string().max(max);
const Operation = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('add'),
      path: text(300),
      type: z.enum(FIELD_TYPES),
      selector: text(2_000).optional(),
      attribute: text(200).optional(),
      transform: z.array(text(500)).max(20).optional(),
    })
    .strict(),
  z.object({ kind: z.literal('remove'), path: text(300) }).strict(),
  z.object({ kind: z.literal('rename'), path: text(300), name: text(64) }).strict(),
  z.object({ kind: z.literal('move'), path: text(300), position: z.number().int().min(1).max(10_000) }).strict(),
  z.object({ kind: z.literal('set'), key: text(300), value: text(10_000) }).strict(),
  z.object({ kind: z.literal('var'), spec: text(300), name: text(64) }).strict(),
  z.object({ kind: z.literal('unvar'), name: text(64) }).strict(),
]);
export const Operations = z.array(Operation).max(200);
/** Variable values as a caller sends them: a small map of short strings (checked again by the config's rules). */
export const Values = z
  .record(z.string().max(64), z.string().max(1_024))
  .refine((values) => Object.keys(values).length <= 50, 'at most 50 variables');

const EditBody = z
  .object({
    /** The revision the user started from: a save over a file changed since is refused, never merged blindly. */
    baseRevision: z.number().int().min(1),
    operations: Operations,
    save: z.boolean().default(false),
    /** Try the edited structure on the live page (with these variable values, default the examples). */
    preview: z.boolean().default(false),
    values: Values.optional(),
  })
  .strict();
const TryBody = z.object({ values: Values.default({}) }).strict();

/** Values as a null-prototype map: names come from outside. */
function valueMap(values: Record<string, string> | undefined, config: ApiConfig): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, values ?? exampleValues(config));
}

export function registerEndpointRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { runtime } = context;
  const configOf = (apiId: string): ApiConfig => {
    const config = runtime.configs.get(apiId);
    if (!config)
      throw new PagejsonError('CONFIG_NOT_FOUND', `no endpoint "${apiId}"`, {
        hint: 'it may have been removed or renamed; reload the list',
      });
    return config;
  };

  api.get('/endpoints', async () => {
    const configs = runtime.configs.list();
    const [statuses, lastDay] = await Promise.all([
      endpointStatus(runtime.store, configs),
      runtime.store.usage({ unit: 'hour', hours: 24 }),
    ]);
    const dayByApiId = totalsBy(lastDay, (row) => row.apiId);
    const byId = new Map(configs.map((config) => [config.apiId, config]));
    return {
      endpoints: statuses.map((status) => ({
        ...status,
        description: describeEndpoint(byId.get(status.apiId)!, { sourceUrls: true }),
        last24h: dayByApiId.get(status.apiId) ?? emptyTotals(),
      })),
      problems: shownProblems(runtime, runtime.configs.problems()),
    };
  });

  api.get('/endpoints/:apiId', async (request) => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    const config = configOf(apiId);
    const [status] = await endpointStatus(runtime.store, [config]);
    const file = runtime.configs.fileOf(apiId);
    return {
      config: withLoginShown(withAccessShown(config)),
      status,
      file: file ? relative(runtime.project.root, file) : null,
      places: urlPlaces(config)?.places ?? [],
      examples: exampleValues(config),
      curl: exampleRequest(config, context.publicUrl()),
      price: endpointPrice(config, runtime.settings.credits).text,
      ...actionsView(config),
      ...paginationView(config),
    };
  });

  api.get('/endpoints/:apiId/revisions', async (request) => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    return { revisions: await listRevisions(runtime.project.dataDir, configOf(apiId)) };
  });

  // "Try it": what the endpoint answers for these values, fetched now (no key, no credits: the owner's test run,
  // as `pagejson run`). It fills the cache as a miss would.
  api.post('/endpoints/:apiId/try', async (request) => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    const config = configOf(apiId);
    const values = valueMap(parse(TryBody, request.body, 'try').values, config);
    const problems = checkVariableValues(config, values);
    if (problems.length > 0)
      throw new PagejsonError(problems[0]!.code, problems[0]!.message, { hint: 'fill in every variable of the endpoint' });
    const outcome = await runtime.retrieval.refresh(config, values);
    return { ...outcome, curl: exampleRequest(config, context.publicUrl(), values) };
  });

  api.post('/endpoints/:apiId/edits', async (request) => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    const body = parse(EditBody, request.body, 'edit');
    refuseLiteralCredentials(body.operations as EditOperation[]);
    refuseLiteralLoginCredentials(body.operations as EditOperation[]);
    const file = runtime.configs.fileOf(apiId);
    if (!file)
      throw new PagejsonError('CONFIG_NOT_FOUND', `no endpoint "${apiId}"`, {
        hint: 'it may have been removed or renamed; reload the list',
      });
    const editable = await openConfigForEdit(file, runtime.settings);
    if (editable.original.revision !== body.baseRevision) {
      throw new PagejsonError(
        'CONFIG_EXISTS',
        `${apiId} changed since you opened it: the file is at revision ${editable.original.revision}, you started from ${body.baseRevision}`,
        {
          hint: 'reload the endpoint to see the current revision, then make the change again',
        },
      );
    }
    const { config, changed } = applyEdits(editable.original, body.operations as EditOperation[]);
    const problems = changed ? shownProblems(runtime, problemsOf(file, config, runtime.settings)) : [];
    let sample: Record<string, unknown> | undefined;
    let previewError: { code: string; message: string } | undefined;
    if (body.preview && problems.length === 0) {
      try {
        const page = await context.pages.page(config, valueMap(body.values, config));
        sample = (await context.pages.sample(config, page)).data;
      } catch (error) {
        previewError = { code: (error as PagejsonError).code ?? 'INTERNAL', message: (error as Error).message };
      }
    }
    const written = body.save && changed && problems.length === 0;
    if (written) {
      await saveEditedConfig(editable, config, runtime.project.dataDir);
      // Served at once rather than when the watcher notices (the answer can say the new revision is live).
      await runtime.configs.reload();
    }
    return {
      config: withLoginShown(withAccessShown(config)),
      changed,
      written,
      changes: describeChanges(editable.original, config),
      problems,
      places: urlPlaces(config)?.places ?? [],
      ...actionsView(config),
      ...paginationView(config),
      ...(sample ? { sample } : {}),
      ...(previewError ? { previewError } : {}),
    };
  });
}
