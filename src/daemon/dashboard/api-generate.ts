import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { noCreditsError } from '../../core/access/accounts.js';
import { API_ID_PATTERN } from '../../core/config/constants.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { urlPlaces } from '../../core/config/url-template.js';
import { writeConfigFile } from '../../core/config/write.js';
import { problemsOf } from '../../core/edit/config-file.js';
import { applyEdits, type EditOperation } from '../../core/edit/operations.js';
import { keepRevision } from '../../core/edit/revisions.js';
import { generationCost } from '../../core/access/credits.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { checkSourceUrl, defaultApiId, type GenerateResult } from '../../core/generation/generate.js';
import { generateIsolated, generationBudgetMs } from '../../core/generation/isolated.js';
import { DEFAULT_ACCOUNT } from '../../core/access/key-service.js';
import { HEURISTIC_MODEL } from '../../core/models/index.js';
import type { TokenUsage } from '../../core/models/types.js';
import type { ScraperNumber } from '../../core/config/schema.js';
import { scraperByNumber } from '../../core/fetch/scrapers/types.js';
import { validateSelector } from '../../core/extract/engine/index.js';
import { parse, type DashboardApiContext, shownProblems } from './api-common.js';
import { Operations } from './api-endpoints.js';
import type { SampledPage } from './page-sampler.js';
import { paginationView } from './pagination-view.js';

/**
 * Generation from the dashboard: the same pipeline and the same credits as `pagejson generate`. The balance
 * is checked before the work and charged when the user saves (a proposal nobody saves costs nothing, as in
 * the CLI). A proposal (config, page, tokens) waits in memory for its save, at most PROPOSALS of them (and
 * PROPOSAL_BYTES of pages) for PROPOSAL_TTL_MS; edits to it are tried on the page it was generated from, without fetching again.
 */
const PROPOSALS = 20;
const PROPOSAL_TTL_MS = 30 * 60_000;
/** Memory the waiting proposals' pages may take (UTF-16 estimate). */
const PROPOSAL_BYTES = 64 * 1024 * 1024;

interface Proposal {
  config: ApiConfig;
  page: SampledPage;
  usage?: TokenUsage;
  cost: number;
}

const GenerateBody = z
  .object({
    url: z.string().min(1).max(2_000),
    apiId: z.string().regex(API_ID_PATTERN, 'use 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit').optional(),
    scraper: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
    session: z.boolean().default(false),
    model: z.string().min(1).max(200).default(HEURISTIC_MODEL),
    selector: z.string().max(2_000).default('body'),
    rule: z.string().max(2_000).nullable().default(null),
    caching: z.boolean().default(true),
  })
  .strict();
const ProposalParam = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{22}$/, 'not a proposal id') });
const ProposalEditBody = z
  .object({ operations: Operations, save: z.boolean().default(false), overwrite: z.boolean().default(false) })
  .strict();

/**
 * A generation's model tokens go into the usage of its apiId as soon as they are spent (docs/models.md,
 * "Tokens"), with no credits: those of a proposal never saved and of a model that failed after answering too.
 */
async function spentTokensRecorded<T extends { usage?: TokenUsage }>(
  context: DashboardApiContext,
  apiId: string,
  work: Promise<T>,
): Promise<T> {
  const record = (usage: unknown): Promise<unknown> => {
    const spent = usage as Partial<TokenUsage> | undefined;
    const promptTokens = Number.isSafeInteger(spent?.promptTokens) ? spent!.promptTokens! : 0;
    const completionTokens = Number.isSafeInteger(spent?.completionTokens) ? spent!.completionTokens! : 0;
    if (promptTokens <= 0 && completionTokens <= 0) return Promise.resolve();
    return context.state.charge(DEFAULT_ACCOUNT, 0, { apiId, promptTokens, completionTokens }).catch(() => undefined);
  };
  try {
    const result = await work;
    await record(result.usage);
    return result;
  } catch (error) {
    if (error instanceof PagejsonError) await record(error.context.usage);
    throw error;
  }
}

/** In a thread of its own with a budget: a hostile page must not hold the event loop that answers /external. */
function generateInThread(
  runtime: DashboardApiContext['runtime'],
  body: z.output<typeof GenerateBody>,
  url: string,
  apiId: string,
): Promise<GenerateResult> {
  const { fetch, extraction } = runtime.settings;
  return generateIsolated(
    {
      url,
      apiId,
      scraper: body.scraper as ScraperNumber,
      session: body.session,
      model: body.model,
      selector: body.selector,
      rule: body.rule?.trim() || null,
      caching: body.caching,
      vars: [],
    },
    {
      scraperFor: (number) => runtime.scrapers.get(number),
      models: runtime.settings.models,
      env: runtime.env,
      modelTimeoutMs: fetch.timeoutMs,
      budgetMs: generationBudgetMs(runtime.settings, body.model, fetch.timeoutMs),
      limits: { maxDepth: extraction.maxDepth, maxElements: extraction.maxElements },
      dataDir: runtime.project.dataDir,
      now: runtime.now,
    },
  );
}

/** Longer than the longest generation's own budget (the slowest model's), so that budget ends it first. */
function generationHandlerTimeoutMs(settings: DashboardApiContext['runtime']['settings']): number {
  const budgets = [HEURISTIC_MODEL, ...Object.keys(settings.models)].map((model) => generationBudgetMs(settings, model));
  return Math.max(settings.fetch.timeoutMs * 3 + settings.extraction.timeoutMs * 4 + 120_000, ...budgets.map((budget) => budget + 10_000));
}

export function registerGenerateRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { runtime } = context;
  // Bounded by count and by the pages they hold (a page may be up to fetch.maxBytes): the oldest go first.
  const proposals = new LRUCache<string, Proposal>({
    max: PROPOSALS,
    ttl: PROPOSAL_TTL_MS,
    maxSize: PROPOSAL_BYTES,
    sizeCalculation: (proposal) => proposal.page.html.length * 2 + 1,
  });
  const proposalOf = (id: string): Proposal => {
    const found = proposals.get(id);
    if (!found)
      throw new PagejsonError('USAGE', 'this proposal is no longer kept (saved already, or older than 30 minutes)', {
        hint: 'generate again',
      });
    return found;
  };
  const fileFor = (apiId: string): string => runtime.configs.fileOf(apiId) ?? join(runtime.project.configsDir, `${apiId}.json`);

  api.get('/generate/options', async () => {
    const balance = await context.state.credits(DEFAULT_ACCOUNT);
    return {
      models: runtime.models.choices().filter((name) => !name.includes('<')),
      scrapers: ([1, 2, 3] as const).map((number) => ({
        number,
        name: scraperByNumber(number).name,
        supportsSession: scraperByNumber(number).supportsSession,
        milliCredits: generationCost(number),
      })),
      creditsEnabled: runtime.settings.credits.enabled,
      balance: balance.milliCredits,
    };
  });

  // A generation fetches a page and may call a model: longer than a retrieval's handler budget (its own
  // budget, below, ends it first).
  api.post('/generate', { handlerTimeout: generationHandlerTimeoutMs(runtime.settings) }, async (request) => {
    const body = parse(GenerateBody, request.body, 'generate');
    const url = checkSourceUrl(body.url);
    const selectorProblem = validateSelector(body.selector.trim() || 'body');
    if (selectorProblem)
      throw new PagejsonError('USAGE', `the section selector "${body.selector}" is not valid: ${selectorProblem}`, {
        hint: 'use a CSS selector such as main, #content or .results',
      });
    const cost = generationCost(body.scraper as ScraperNumber);
    if (runtime.settings.credits.enabled) {
      const balance = await context.state.credits(DEFAULT_ACCOUNT);
      if (balance.milliCredits < cost) throw noCreditsError(balance.account, balance.milliCredits, cost);
    }
    const apiId = body.apiId ?? defaultApiId(url);
    // A model the project cannot reach is a mistake in what was asked: said before any fetch.
    await runtime.models.get(body.model);
    const result = await spentTokensRecorded(context, apiId, generateInThread(runtime, body, url, apiId));
    const id = randomBytes(16).toString('base64url');
    proposals.set(id, {
      config: result.config,
      page: { html: result.html, finalUrl: result.finalUrl },
      cost,
      ...(result.usage ? { usage: result.usage } : {}),
    });
    const file = fileFor(result.config.apiId);
    return {
      proposalId: id,
      config: result.config,
      sample: result.sample,
      places: urlPlaces(result.config)?.places ?? [],
      ...paginationView(result.config),
      milliCredits: cost,
      exists: existsSync(file),
      file: relative(runtime.project.root, file),
    };
  });

  api.post('/generate/:id/edits', async (request) => {
    const { id } = parse(ProposalParam, request.params, 'proposal');
    const body = parse(ProposalEditBody, request.body, 'edit');
    const proposal = proposalOf(id);
    const { config: edited } = applyEdits(proposal.config, body.operations as EditOperation[]);
    // A proposal is revision 1 however much it is edited before its first save.
    const config = { ...edited, revision: proposal.config.revision };
    const file = fileFor(config.apiId);
    const problems = shownProblems(runtime, problemsOf(file, config, runtime.settings));
    const sample = problems.length === 0 ? (await context.pages.sample(config, proposal.page)).data : undefined;
    const places = urlPlaces(config)?.places ?? [];
    if (!body.save || problems.length > 0)
      return { config, problems, places, ...paginationView(config), written: false, ...(sample ? { sample } : {}) };

    const existing = runtime.configs.get(config.apiId);
    if ((existing || existsSync(file)) && !body.overwrite) {
      throw new PagejsonError('CONFIG_EXISTS', `an endpoint "${config.apiId}" exists already (${relative(runtime.project.root, file)})`, {
        hint: 'choose another API id, or save over it as its next revision',
      });
    }
    const saved = existing ? { ...config, revision: existing.revision + 1 } : config;
    // Charged when saved, as the CLI does: a failed or abandoned generation costs nothing.
    // The tokens were recorded when the model spent them (spentTokensRecorded); the save adds the credits.
    await context.state.charge(DEFAULT_ACCOUNT, proposal.cost, { apiId: saved.apiId, promptTokens: 0, completionTokens: 0 });
    if (existing) await keepRevision(runtime.project.dataDir, existing);
    await writeConfigFile(file, saved);
    proposals.delete(id);
    await runtime.configs.reload();
    return { config: saved, problems, places, written: true, file: relative(runtime.project.root, file), ...(sample ? { sample } : {}) };
  });
}
