import { relative } from 'node:path';
import type { Command } from 'commander';
import { exampleValues } from '../../core/config/url-template.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import type { Health, RepairProposal } from '../../core/health/index.js';

/**
 * `pagejson heal <apiId> [--yes] [--json]`: repairs a config whose page changed, against the live page. The
 * last good values (the latest snapshot's data, else the latest healthy data the endpoint's status keeps, else
 * the generated sample) are found on the new page and the
 * selectors re-derived from them (`heuristic`), or proposed by the config's model and verified. Shows the
 * change as a diff and writes it, one revision up, only on confirmation or with --yes. A proposal the daemon
 * stored (`configs/<apiId>.proposed.json`) is offered first.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('heal')
    .description('repair a degraded or broken config against its live page (shows the diff; writes on confirmation or --yes)')
    .argument('<apiId>', 'the endpoint to repair')
    .option('--yes', 'write the repair without asking')
    .option(
      '--json',
      'machine output: {apiId, fromRevision, toRevision, by, recovery, repaired, unrepaired, refused, modelFields, changes, now, withRepair, better, reason, written, health}',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson check            # which endpoints need it\n  pagejson heal books       # review the repair, then confirm\n  pagejson heal books --yes --json',
    )
    .action(async (apiId: string, options: { yes?: boolean; json?: boolean }, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      const health = await import('../../core/health/index.js');
      const { loadBaselines } = await import('../endpoint-health.js');
      // The endpoint is healthy afterwards or not by the one judgement, against its baseline (issue 33).
      const baseline = (await loadBaselines(project, [config])).of(config);
      const snapshot = (await health.readSnapshots(project.configsDir, apiId)).at(0);
      // The last good values: the latest snapshot's, else the latest healthy data the endpoint's status keeps, else the sample.
      const expected = (snapshot?.record.data ?? baseline?.sample ?? health.expectedData(config)) as Record<string, unknown> | undefined;
      if (!expected) {
        throw new PagejsonError('USAGE', `${apiId} has no last good values to repair from`, {
          hint: `take a snapshot while it works (\`pagejson snapshot ${apiId}\`), or generate it again with \`pagejson generate <url> --id ${apiId} --force\``,
        });
      }
      const stored = await health.readProposal(project.configsDir, apiId, config.revision);
      const [{ createLocalRetriever }, { repairIsolated }] = await Promise.all([
        import('../local-retriever.js'),
        import('../../core/health/isolated-repair.js'),
      ]);
      const retriever = await createLocalRetriever(project, ctx.env);
      let page;
      try {
        page = await retriever.fetchPage(config, exampleValues(config));
      } finally {
        await retriever.close();
      }
      // The repair (or the daemon's stored one, re-measured on the page as it is now) runs in a thread with a
      // budget (issue 40), as the daemon's own repairs do: a page or selectors that would take minutes end the
      // command with the budget's error.
      const { fetch, extraction, models } = project.settings;
      const request = { config, html: page.html, pageUrl: page.finalUrl, expected, ...(stored ? { stored } : {}) };
      const { recordCommandTokens } = await import('./generate-credits.js');
      const proposal = await repairIsolated(request, {
        models,
        env: ctx.env,
        fetchTimeoutMs: fetch.timeoutMs,
        extractionTimeoutMs: extraction.timeoutMs,
        limits: { maxDepth: extraction.maxDepth, maxElements: extraction.maxElements },
        dataDir: project.dataDir,
      }).catch(async (error: unknown) => {
        // A model that answered and then failed spent its tokens all the same (MODEL_FAILED carries them).
        await recordCommandTokens(project, apiId, error);
        throw error;
      });
      // The model's tokens go into the endpoint's usage, as run's and check's do (docs/models.md, "Tokens").
      await recordCommandTokens(project, apiId, proposal.usage);
      const file = relative(ctx.cwd, `${project.configsDir}/${apiId}.json`) || `${apiId}.json`;
      const nothingToDo = proposal.changes.length === 0;
      // Shown before it is saved (issue 47): the change field by field, what is not repaired, the health now and
      // with the repair; saved only when that is better and no healthy field becomes unhealthy.
      const { now, withRepair, verdict } = health.judgeRepair(config, proposal, baseline);
      if (!options.json) showRepair(ctx, apiId, proposal, { now, withRepair, nothingToDo });
      const write =
        !nothingToDo &&
        verdict.better &&
        (options.yes === true || (ctx.interactive && !options.json && (await confirmWrite(file, proposal.config.revision))));
      // What the endpoint serves once this command is done: the repair if written (or nothing changed), else the config as it is.
      const after = write || nothingToDo ? withRepair : now;
      if (after.state !== 'healthy' || (!nothingToDo && !verdict.better)) ctx.exitCode = 1;
      if (write) {
        const { openConfigForEdit, saveEditedConfig } = await import('../../core/edit/config-file.js');
        const editable = await openConfigForEdit(`${project.configsDir}/${apiId}.json`);
        await saveEditedConfig(editable, proposal.config, project.dataDir);
        await health.removeProposal(project.configsDir, apiId);
      }
      const judged = (of: typeof now) => ({ state: of.state, failing: of.failing, findings: of.findings });
      if (options.json) {
        return writeJson(ctx.stdout, {
          apiId,
          fromRevision: proposal.fromRevision,
          toRevision: proposal.config.revision,
          by: proposal.by,
          recovery: proposal.recovery,
          repaired: proposal.repaired,
          unrepaired: proposal.unrepaired,
          refused: proposal.refused,
          modelFields: proposal.modelFields,
          changes: proposal.changes,
          now: judged(now),
          withRepair: judged(withRepair),
          better: verdict.better,
          ...(verdict.reason && !nothingToDo ? { reason: verdict.reason } : {}),
          written: write,
          health: judged(after),
        });
      }
      if (nothingToDo)
        return writeLine(
          ctx.stdout,
          after.state === 'healthy'
            ? 'nothing to repair: the selectors already find the last good values'
            : `no repair found, and ${apiId} is ${after.state}: ${after.findings.join('; ')}; fix it with \`pagejson edit ${apiId}\``,
        );
      if (!verdict.better) return writeLine(ctx.stdout, `nothing saved: ${verdict.reason}; fix it with \`pagejson edit ${apiId}\``);
      writeLine(
        ctx.stdout,
        write ? `saved ${file}, revision ${proposal.config.revision}` : `nothing written: run \`pagejson heal ${apiId} --yes\` to save it`,
      );
    });
}

/** The repair as `heal` shows it before asking: the change field by field, what it could not repair, and the health. */
function showRepair(
  ctx: CliContext,
  apiId: string,
  proposal: RepairProposal,
  view: { now: Health; withRepair: Health; nothingToDo: boolean },
): void {
  const c = colors(ctx.stdout, ctx.env);
  const { found, total } = proposal.recovery;
  const percent = total === 0 ? 0 : Math.round((100 * found) / total);
  writeLine(ctx.stdout, `${c.bold(apiId)}: repair by ${proposal.by}, recovers ${found} of ${total} last good values (${percent}%)`);
  for (const change of proposal.changes) writeLine(ctx.stdout, `  ${change.text}`);
  if (proposal.unrepaired.length > 0) writeLine(ctx.stdout, c.yellow(`  not repaired (selectors kept): ${proposal.unrepaired.join(', ')}`));
  for (const refusal of proposal.refused) writeLine(ctx.stdout, c.yellow(`  refused: ${refusal}`));
  if (proposal.modelFields.length > 0)
    writeLine(ctx.stdout, c.dim(`  filled by the model when served, not judged here: ${proposal.modelFields.join(', ')}`));
  if (view.nothingToDo) return;
  const said = (judged: Health) =>
    judged.state === 'healthy' ? c.green('healthy') : c.yellow(`${judged.state}: ${judged.findings.join('; ')}`);
  writeLine(ctx.stdout, `  now: ${said(view.now)}`);
  writeLine(ctx.stdout, `  with the repair: ${said(view.withRepair)}`);
}

async function confirmWrite(file: string, revision: number): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message: `Save the repair to ${file} as revision ${revision}?`, default: true });
}
