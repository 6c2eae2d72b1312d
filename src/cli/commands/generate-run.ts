import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project } from '../../core/config/project.js';
import { writeConfigFile } from '../../core/config/write.js';
import { formatCredits, generationCost } from '../../core/credits.js';
import { isPagejsonError, PagejsonError } from '../../core/errors.js';
import { defaultApiId, generateConfig, type GenerateResult } from '../../core/generate.js';
import { createModelResolver, HEURISTIC_MODEL } from '../../core/models/index.js';
import { createScraperPool, scraperOptionsFromSettings } from '../../core/scrapers/index.js';
import { validateSelector } from '../../core/structure/index.js';
import { displayPath } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { projectFor } from '../project-option.js';
import { askGenerateInputs, type GenerateInputs } from '../prompts/generate-inputs.js';
import { askReview, type ReviewChoice } from '../prompts/generate-review.js';
import { startSpinner } from '../spinner.js';
import { renderStructureTree } from '../tree.js';
import { chargeGeneration, ensureGenerationCredits } from './generate-credits.js';
import type { GenerateFlags } from './generate.js';


/** The body of `pagejson generate`, loaded when the command runs (see generate.ts for the flags). */
export async function runGenerate(urlArgument: string | undefined, flags: GenerateFlags, command: Command, ctx: CliContext): Promise<void> {
  const asking = ctx.interactive && !flags.yes;
  if (!ctx.interactive && !flags.yes) {
    throw new PagejsonError('USAGE', 'not on a terminal, so the generated structure cannot be reviewed', {
      hint: 'pass --yes to save it without review (and every input as a flag: <url>, --scraper, --model, --selector, --rule)',
    });
  }
  if (!urlArgument && !asking) {
    throw new PagejsonError('USAGE', 'missing the page URL', { hint: 'pagejson generate <url> [--yes]' });
  }
  const project = await projectFor(command, ctx);
  const models = createModelResolver({ models: project.settings.models, env: ctx.env });

  const given: GenerateInputs = {
    url: urlArgument,
    scraper: flags.scraper,
    session: flags.session,
    model: flags.model,
    selector: flags.selector,
    rule: flags.rule,
  };
  if (flags.selector !== undefined) checkSelectorFlag(flags.selector);
  const inputs = asking
    ? await askGenerateInputs(given, modelChoices(project), (selector) => validateSelector(selector))
    : { url: urlArgument!, scraper: flags.scraper ?? 1, session: flags.session ?? false, model: flags.model ?? HEURISTIC_MODEL, selector: flags.selector ?? 'body', rule: flags.rule ?? null };

  // A model the project cannot reach is a mistake in what was typed: say so before any fetch or charge.
  await models.get(inputs.model).catch((error: unknown) => {
    if (isPagejsonError(error) && error.code === 'MODEL_NOT_FOUND' && error.message.startsWith('unknown model')) {
      throw new PagejsonError('USAGE', error.message, error.hint ? { hint: error.hint } : {});
    }
    throw error;
  });
  const apiId = flags.id ?? safeDefaultId(inputs.url);
  const file = join(project.configsDir, `${apiId}.json`);
  const previousRevision = await existingRevision(file, apiId, Boolean(flags.force), ctx);
  const cost = generationCost(inputs.scraper);
  // Refuse before the work when the balance cannot pay for it; the charge itself follows a successful generation.
  await ensureGenerationCredits(project, cost);

  const pool = createScraperPool(scraperOptionsFromSettings(project.settings.fetch, ctx.env));
  const spinner = await startSpinner(ctx, `fetching ${inputs.url} with scraper ${inputs.scraper}`);
  let result: GenerateResult;
  try {
    result = await generateConfig(
      { ...inputs, apiId, caching: flags.cache, vars: flags.var },
      {
        scraperFor: (n) => pool.get(n),
        modelFor: async (name) => {
          spinner.update(`generating a structure with ${name}`);
          return models.get(name);
        },
      },
    );
    spinner.stop();
  } finally {
    spinner.stop();
    await pool.close();
  }
  const balance = await chargeGeneration(project, cost, { apiId, ...(result.usage ? { usage: result.usage } : {}) });

  const config = result.config;
  if (previousRevision !== undefined) config.revision = previousRevision + 1;
  const out = colors(ctx.stdout, ctx.env);
  if (!flags.json) {
    writeLine(ctx.stdout, `${out.bold(apiId)}  ${out.dim(`from ${result.finalUrl}, ${config.model}, scraper ${config.scraper}`)}`);
    writeLine(ctx.stdout, renderStructureTree(config.structure, result.sample, { name: out.cyan, dim: out.dim, value: out.green }));
    writeLine(ctx.stdout);
  }
  let choice: ReviewChoice = 'accept';
  if (asking) {
    choice = await askReview(apiId, { canEdit: true });
    if (choice === 'cancel') {
      writeLine(ctx.stdout, 'cancelled: nothing saved');
      return;
    }
  }

  await mkdir(project.configsDir, { recursive: true });
  await writeConfigFile(file, config);
  const shown = displayPath(file, ctx.cwd);
  if (choice === 'edit') {
    // The editor works on a saved file (it validates, bumps the revision and shows the diff on save), so the
    // generated revision is written first and the editor takes over from there.
    writeLine(ctx.stdout, `${out.green('saved')} ${shown}, revision ${config.revision}; opening the editor`);
    const [{ openConfigForEdit }, { runInteractiveEdit }] = await Promise.all([import('../../core/edit/config-file.js'), import('../prompts/edit-session.js')]);
    await runInteractiveEdit(await openConfigForEdit(file, project.settings), project, ctx);
    return;
  }
  if (flags.json) {
    writeJson(ctx.stdout, { apiId, file: shown, revision: config.revision, structure: config.structure, sample: result.sample });
    return;
  }
  const charged = balance ? ` (${formatCredits(cost)} credits, ${formatCredits(balance.milliCredits)} left)` : '';
  writeLine(ctx.stdout, `${out.green('saved')} ${shown}, revision ${config.revision}${charged}`);
  writeLine(ctx.stdout, `next: ${out.bold(`pagejson run ${apiId}`)} to try it, ${out.bold('pagejson serve')} to serve it`);
}

function modelChoices(project: Project): Array<{ value: string; description: string }> {
  return [
    { value: HEURISTIC_MODEL, description: 'built in, offline, deterministic' },
    ...Object.entries(project.settings.models).map(([name, entry]) => ({ value: name, description: `${entry.model} at ${entry.baseURL}` })),
  ];
}

function checkSelectorFlag(selector: string): void {
  const problem = selector.trim() === '' ? null : validateSelector(selector);
  if (problem) throw new PagejsonError('USAGE', `--selector "${selector}" is not a valid CSS selector: ${problem}`, { hint: 'e.g. --selector "main .results"' });
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
    const revision = (JSON.parse(await readFile(file, 'utf8')) as { revision?: unknown }).revision;
    return typeof revision === 'number' && Number.isInteger(revision) && revision >= 1 ? revision : 1;
  } catch {
    return 1;
  }
}
