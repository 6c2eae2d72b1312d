import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project } from '../../core/config/project.js';
import { writeConfigFile } from '../../core/config/write.js';
import { readConfigFileText } from '../../core/registry/load.js';
import { generationCost } from '../../core/access/credits.js';
import { formatCredits } from '../../core/shared/credit-amounts.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import { checkSourceUrl, defaultApiId, type GenerateResult } from '../../core/generation/generate.js';
import { API_ID_PATTERN } from '../../core/config/constants.js';
import { createModelResolver, HEURISTIC_MODEL } from '../../core/models/index.js';
import { createScraperPool, scraperOptionsFromSettings } from '../../core/fetch/scrapers/index.js';
import type { FetchResult, Scraper } from '../../core/fetch/scrapers/types.js';
import { validateSelector } from '../../core/extract/engine/index.js';
import { displayPath } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { projectFor } from '../project-option.js';
import { askGenerateInputs, type GeneratedInputs, type GenerateInputs } from '../prompts/generate-inputs.js';
import { askReview } from '../prompts/generate-review.js';
import { offerPagination } from '../prompts/generate-pagination.js';
import { startSpinner } from '../spinner.js';
import { renderStructureTree } from '../tree.js';
import { chargeGeneration, ensureGenerationCredits, recordUnsavedTokens } from './generate-credits.js';
import type { GenerateFlags } from './generate.js';
import { accessFromFlags } from './generate-access.js';
import { loginFromFlags } from './generate-login.js';
import { actionsFromFlags, keptSettings } from './generate-actions.js';
import { cliLogins } from '../login-sessions.js';

/** The body of `pagejson generate`, loaded when the command runs (see generate.ts for the flags). */
export async function runGenerate(urlArgument: string | undefined, flags: GenerateFlags, command: Command, ctx: CliContext): Promise<void> {
  // The URL is checked before anything else is said or asked: a typo is not found after five questions.
  if (urlArgument !== undefined) checkSourceUrl(urlArgument);
  let access = accessFromFlags(flags);
  let login = loginFromFlags(flags);
  let steps = await actionsFromFlags(flags);
  const asking = ctx.interactive && !flags.yes;
  if (!ctx.interactive && !flags.yes) {
    throw new PagejsonError('USAGE', 'not on a terminal, so the generated structure cannot be reviewed', {
      hint: 'pass --yes to save it without review (and every input as a flag: <url>, --scraper, --model, --selector, --rule)',
    });
  }
  if (!urlArgument && !asking) {
    throw new PagejsonError('USAGE', 'missing the page URL', { hint: 'pagejson generate <url> [--yes]' });
  }
  if (flags.selector !== undefined) checkSelectorFlag(flags.selector);
  const project = await projectFor(command, ctx);
  const models = createModelResolver({ models: project.settings.models, env: ctx.env });
  // --force keeps what the config it replaces says about reaching the page, unless a flag says it anew.
  const keptId = flags.id ?? (urlArgument !== undefined ? safeDefaultId(urlArgument) : undefined);
  const kept = flags.force && keptId !== undefined ? await keptSettings(join(project.configsDir, `${keptId}.json`)) : {};
  if (!steps.actions && kept.actions) steps = { actions: kept.actions, actionExamples: kept.actionExamples ?? {} };
  if (!login.login && kept.login) login = { login: kept.login };
  if (!access.access && kept.access) access = { access: kept.access };
  const scraper = flags.scraper ?? (steps.actions ? (kept.actions && steps.actions === kept.actions ? kept.scraper : 3) : undefined);

  const given: GenerateInputs = {
    url: urlArgument,
    scraper,
    session: flags.session,
    model: flags.model,
    selector: flags.selector,
    rule: flags.rule,
  };
  const force = Boolean(flags.force);
  // An --id already taken is said before any question (as the URL's own id is, right after the URL).
  if (flags.id !== undefined) await existingRevision(join(project.configsDir, `${flags.id}.json`), flags.id, force, ctx);
  let inputs: GeneratedInputs;
  try {
    inputs = asking
      ? await askGenerateInputs(given, modelChoices(project), {
          url: urlProblem,
          selector: (selector) => validateSelector(selector),
          takenId: (url) => {
            const id = safeDefaultId(url);
            return flags.id === undefined && !force && existsSync(join(project.configsDir, `${id}.json`)) ? id : undefined;
          },
          id: (value) => idProblem(value, project.configsDir, force),
        })
      : {
          url: urlArgument!,
          scraper: scraper ?? 1,
          session: flags.session ?? false,
          model: flags.model ?? HEURISTIC_MODEL,
          selector: flags.selector ?? 'body',
          rule: flags.rule ?? null,
        };
  } catch (error) {
    if ((error as Error).name === 'GoBack') return cancelled(ctx);
    throw error;
  }

  // A model the project cannot reach is a mistake in what was typed: say so before any fetch or charge.
  await models.get(inputs.model).catch((error: unknown) => {
    if (isPagejsonError(error) && error.code === 'MODEL_NOT_FOUND' && error.message.startsWith('unknown model')) {
      throw new PagejsonError('USAGE', error.message, error.hint ? { hint: error.hint } : {});
    }
    throw error;
  });
  let apiId = flags.id ?? inputs.apiId ?? safeDefaultId(inputs.url);
  let file = join(project.configsDir, `${apiId}.json`);
  let previousRevision = await existingRevision(file, apiId, Boolean(flags.force), ctx);
  const cost = generationCost(inputs.scraper);
  // Refuse before the work when the balance cannot pay for it; the charge itself follows the user's "save".
  await ensureGenerationCredits(project, cost);

  const pool = createScraperPool({
    ...scraperOptionsFromSettings(project.settings.fetch, ctx.env, project.settings.browser),
    logins: await cliLogins(project, ctx.env),
  });
  const spinner = await startSpinner(ctx, `fetching ${inputs.url} with scraper ${inputs.scraper}`);
  const fetched: FetchedNotes = {};
  let result: GenerateResult | undefined;
  try {
    // In a thread of its own with a budget and the project's document limits, as the dashboard's generation
    // (issue 40): a hostile page ends the command with the budget's or the limit's error. Fetches are made here.
    const { generateIsolated, generationBudgetMs } = await import('../../core/generation/isolated.js');
    const { extraction } = project.settings;
    const generate = () =>
      generateIsolated(
        {
          ...inputs,
          apiId,
          caching: flags.cache,
          ...access,
          ...login,
          ...steps,
          ...(kept.pagination ? { pagination: kept.pagination } : {}),
          vars: flags.var,
          paginate: flags.paginate !== false,
        },
        {
          scraperFor: (n) =>
            announcing(pool.get(n), (page) => {
              noteFetched(fetched, page);
              spinner.update(`generating a structure with ${inputs.model}`);
            }),
          models: project.settings.models,
          env: ctx.env,
          modelTimeoutMs: CLI_MODEL_TIMEOUT_MS,
          dataDir: project.dataDir,
          budgetMs: generationBudgetMs(project.settings, inputs.model, CLI_MODEL_TIMEOUT_MS),
          limits: { maxDepth: extraction.maxDepth, maxElements: extraction.maxElements },
        },
      );
    while (result === undefined) {
      try {
        result = await generate();
      } catch (error) {
        spinner.stop();
        // On a terminal, a section that matches nothing is asked again (with the sections the page has).
        const { askAnotherSection } = await import('../prompts/generate-section.js');
        const selector = asking ? await askAnotherSection(error, ctx, (text) => validateSelector(text)) : undefined;
        if (selector === undefined) throw error;
        inputs = { ...inputs, selector };
      }
    }
    spinner.stop();
  } catch (error) {
    // A model that answered and then failed (invalid twice, a timeout after a correction) spent tokens: recorded, not charged.
    if (isPagejsonError(error)) await recordUnsavedTokens(project, apiId, error.context.usage);
    throw error;
  } finally {
    spinner.stop();
    await pool.close();
  }

  let config = result.config;
  const out = colors(ctx.stdout, ctx.env);
  if (!flags.json) {
    writeLine(ctx.stdout, `${out.bold(apiId)}  ${out.dim(`from ${result.finalUrl}, ${config.model}, scraper ${config.scraper}`)}`);
    writeLine(ctx.stdout, renderStructureTree(config.structure, result.sample, { name: out.cyan, dim: out.dim, value: out.green }));
    writeLine(ctx.stdout);
    // A field the model asked for that matched nothing is said, not lost without a word.
    for (const note of result.fieldNotes ?? [])
      writeLine(
        ctx.stdout,
        `${out.yellow(note.outcome === 'dropped' ? 'dropped' : 'model field')} ${out.bold(note.field)}: ${note.reason}`,
      );
    if (result.fieldNotes) writeLine(ctx.stdout);
  }
  await writeFetchNotes(ctx, fetched, inputs);
  config = await offerPagination(config, result.nextLink, ctx, { asking, json: Boolean(flags.json) });
  // The review: nothing is written or charged until the user saves.
  while (asking) {
    const choice = await askReview(apiId, displayPath(file, ctx.cwd));
    if (choice === 'cancel') return cancelled(ctx, () => recordUnsavedTokens(project, apiId, result.usage));
    if (choice === 'rename') {
      const { input } = await import('../prompts/ask.js');
      const chosen = await input({
        message: 'apiId',
        default: apiId,
        validate: (value) => idProblem(value.trim(), project.configsDir, Boolean(flags.force)) ?? true,
      }).catch((error: unknown) => {
        if ((error as Error).name === 'GoBack') return apiId;
        throw error;
      });
      apiId = chosen.trim();
      file = join(project.configsDir, `${apiId}.json`);
      previousRevision = await existingRevision(file, apiId, Boolean(flags.force), ctx);
      config = { ...config, apiId };
      continue;
    }
    if (choice === 'edit') {
      const [{ serializeConfig }, { runInteractiveEdit }] = await Promise.all([
        import('../../core/config/write.js'),
        import('../prompts/edit-session.js'),
      ]);
      const text = serializeConfig(config);
      const editable = {
        file,
        original: config,
        writtenKeys: new Set(Object.keys(JSON.parse(text) as object)),
        text,
        settings: project.settings,
      };
      // The page already fetched, tried on in a thread with the extraction budget and limits (edit-sample.ts).
      const { probePage } = await import('../prompts/edit-sample.js');
      const page = await probePage({ html: result.html, finalUrl: result.finalUrl }, config.apiId, project);
      const edited = await runInteractiveEdit(editable, project, ctx, { draft: true, page });
      if (edited.outcome === 'quit') return cancelled(ctx, () => recordUnsavedTokens(project, apiId, result.usage));
      config = edited.config;
    }
    break;
  }

  const balance = await chargeGeneration(project, cost, { apiId, ...(result.usage ? { usage: result.usage } : {}) });
  if (previousRevision !== undefined) config.revision = previousRevision + 1;
  await mkdir(project.configsDir, { recursive: true });
  await writeConfigFile(file, config);
  const shown = displayPath(file, ctx.cwd);
  if (flags.json) {
    writeJson(ctx.stdout, {
      apiId,
      file: shown,
      revision: config.revision,
      structure: config.structure,
      sample: result.sample,
      ...(config.pagination ? { pagination: config.pagination } : {}),
      fieldNotes: result.fieldNotes ?? [],
    });
    return;
  }
  const charged = balance ? ` (${formatCredits(cost)} credits, ${formatCredits(balance.milliCredits)} left)` : '';
  writeLine(ctx.stdout, `${out.green('saved')} ${shown}, revision ${config.revision}${charged}`);
  writeLine(ctx.stdout, `next: ${out.bold(`pagejson run ${apiId}`)} to try it, ${out.bold('pagejson serve')} to serve it`);
}

/**
 * One model call's timeout here: the model client's own default, as `generate` had before it ran in a thread
 * (a local model may take a minute to propose a structure); the daemon's generation gives it fetch.timeoutMs.
 */
const CLI_MODEL_TIMEOUT_MS = 120_000;

/** The scraper, telling `then` once its page has come (the spinner moves on to the model). */
function announcing(scraper: Scraper, then: (page: FetchResult) => void): Scraper {
  return {
    name: scraper.name,
    close: () => scraper.close(),
    fetch: (request) => scraper.fetch(request).then((page) => (then(page), page)),
  };
}

/** The first page fetched (a pagination probe fetches more): what it says about itself is told after the tree. */
interface FetchedNotes {
  page?: FetchResult;
}

function noteFetched(notes: FetchedNotes, page: FetchResult): void {
  notes.page ??= page;
}

async function writeFetchNotes(ctx: CliContext, notes: FetchedNotes, inputs: GeneratedInputs): Promise<void> {
  if (!notes.page) return;
  const { writePageNotes } = await import('../page-notes.js');
  writePageNotes(ctx, notes.page, inputs.scraper, `\`pagejson generate ${inputs.url} --scraper 3\``);
}

/** Cancelled by the user; after a generation, its model tokens are still recorded (`record`), never charged. */
async function cancelled(ctx: CliContext, record?: () => Promise<void>): Promise<void> {
  await record?.();
  writeLine(ctx.stderr, 'cancelled: nothing was written or charged');
  ctx.exitCode = 130;
}

function urlProblem(value: string): string | null {
  try {
    checkSourceUrl(value);
    return null;
  } catch (error) {
    return isPagejsonError(error) ? `${error.message}: ${error.hint ?? ''}`.replace(/: $/, '') : 'not a URL';
  }
}

function idProblem(value: string, configsDir: string, force: boolean): string | null {
  if (!API_ID_PATTERN.test(value)) return '1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit';
  if (!force && existsSync(join(configsDir, `${value}.json`))) return `configs/${value}.json already exists: choose another id`;
  return null;
}

function modelChoices(project: Project): Array<{ value: string; description: string }> {
  return [
    { value: HEURISTIC_MODEL, description: 'built in, offline, deterministic' },
    ...Object.entries(project.settings.models).map(([name, entry]) => ({ value: name, description: `${entry.model} at ${entry.baseURL}` })),
  ];
}

function checkSelectorFlag(selector: string): void {
  const problem = selector.trim() === '' ? null : validateSelector(selector);
  if (problem)
    throw new PagejsonError('USAGE', `--selector "${selector}" is not a valid CSS selector: ${problem}`, {
      hint: 'e.g. --selector "main .results"',
    });
}

function safeDefaultId(url: string): string {
  try {
    return defaultApiId(url);
  } catch {
    // generateConfig reports a bad URL with its own message.
    return 'page';
  }
}

/** An existing config file needs --force, which keeps counting its revisions. */
async function existingRevision(file: string, apiId: string, force: boolean, ctx: CliContext): Promise<number | undefined> {
  if (!existsSync(file)) return undefined;
  if (!force) {
    throw new PagejsonError('CONFIG_EXISTS', `${displayPath(file, ctx.cwd)} already exists`, {
      context: { apiId, file },
      hint: `pass --force to replace it (its revision is bumped), choose another --id, or change it with \`pagejson edit ${apiId}\``,
    });
  }
  try {
    const read = await readConfigFileText(file);
    const revision = 'text' in read ? (JSON.parse(read.text) as { revision?: unknown }).revision : undefined;
    return typeof revision === 'number' && Number.isInteger(revision) && revision >= 1 ? revision : 1;
  } catch {
    return 1;
  }
}
