import { basename, relative } from 'node:path';
import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { API_ID_PATTERN } from '../../core/config/constants.js';
import type { ConfigProblem } from '../../core/config/problems.js';
import { loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { escapeData, escapeProperty } from '../github-annotations.js';

/**
 * `pagejson test [apiId...] [--update] [--format text|json|github]`: offline, re-extracts every snapshot with
 * the current config and compares with the data stored beside it. Exit 1 on any difference: this is what CI
 * runs on a pull request that edits a config. `--update` takes the new data as expected.
 */
interface Outcome {
  apiId: string;
  snapshot: string;
  ok: boolean;
  differences: Array<{ path: string; kind: string; before?: unknown; after?: unknown }>;
  /** The same judgement as the daemon's, against the baseline the snapshots teach (what changed, in words). */
  health?: { state: string; findings: string[] };
  error?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('test')
    .description('re-extract every snapshot with the current configs, offline, and report what changed (exit 1 on any change)')
    .argument('[apiId...]', 'only these endpoints (default: every config with snapshots)')
    .option('--update', "take the new data as expected and rewrite the snapshots' data")
    .option('--format <format>', 'text, json or github (annotations on the pull request)', 'text')
    .addHelpText('after', '\nExamples:\n  pagejson test\n  pagejson test books --format github\n  pagejson test books --update')
    .action(async (apiIds: string[], options: { update?: boolean; format: string }, command: Command) => {
      const format = options.format;
      if (!['text', 'json', 'github'].includes(format))
        throw new PagejsonError('USAGE', `--format must be text, json or github, not "${format}"`, {
          hint: 'use --format github in GitHub Actions',
        });
      const { project, set } = await loadProjectConfigs(command, ctx);
      const broken = brokenConfigs(set.problems);
      for (const apiId of apiIds) {
        if (broken.has(apiId)) requireConfig(project, set, apiId, ctx.cwd);
        if (!set.configs.has(apiId))
          throw new PagejsonError('USAGE', `no config with apiId "${apiId}"`, {
            hint: `configs: ${[...set.configs.keys()].join(', ') || 'none'}`,
          });
      }
      const [{ readSnapshots, compareData, updateSnapshotData, baselineFor, judgeConfig }, { createCliExtractor }, { replaySnapshot }] =
        await Promise.all([import('../../core/health/index.js'), import('../local-retriever.js'), import('../snapshot-replay.js')]);
      // The daemon's budget and limits: a costly selector on a committed snapshot fails its test, not the CI job.
      const extractor = await createCliExtractor(project);
      const outcomes: Outcome[] = [];
      const without: string[] = [];
      try {
        for (const config of [...set.configs.values()]
          .filter((c) => apiIds.length === 0 || apiIds.includes(c.apiId))
          .sort((a, b) => a.apiId.localeCompare(b.apiId))) {
          const snapshots = await readSnapshots(project.configsDir, config.apiId);
          if (snapshots.length === 0) without.push(config.apiId);
          const baseline = baselineFor(
            config,
            undefined,
            snapshots.map((snapshot) => snapshot.record.data),
          );
          for (const snapshot of snapshots) {
            try {
              // Every page the snapshot keeps, through the same page loop as a retrieval (snapshot-replay.ts).
              const data = await replaySnapshot(config, snapshot, extractor);
              const differences = compareData(snapshot.record.data, data);
              const { state, findings } = judgeConfig(config, data, baseline);
              if (differences.length > 0 && options.update) await updateSnapshotData(project.configsDir, snapshot, data, config.revision);
              outcomes.push({
                apiId: config.apiId,
                snapshot: snapshot.name,
                ok: differences.length === 0 || options.update === true,
                differences,
                health: { state, findings },
              });
            } catch (error) {
              outcomes.push({ apiId: config.apiId, snapshot: snapshot.name, ok: false, differences: [], error: (error as Error).message });
            }
          }
        }
        // A config that no longer loads cannot be checked against its snapshots: that fails too, with its reason.
        for (const [apiId, problem] of broken) {
          if (apiIds.length > 0 && !apiIds.includes(apiId)) continue;
          if ((await readSnapshots(project.configsDir, apiId)).length === 0) continue;
          outcomes.push({
            apiId,
            snapshot: '*',
            ok: false,
            differences: [],
            error: `the config is invalid at ${problem.path}: ${problem.message} (see \`pagejson validate\`)`,
          });
        }
      } finally {
        await extractor.close();
      }
      if (outcomes.some((outcome) => !outcome.ok)) ctx.exitCode = 1;
      report(outcomes, without, format, options.update === true, project.configsDir, ctx);
    });
}

/** The first problem of each config file that did not load, by the apiId its name gives. */
function brokenConfigs(problems: ConfigProblem[]): Map<string, ConfigProblem> {
  const broken = new Map<string, ConfigProblem>();
  for (const problem of problems) {
    const apiId = basename(problem.file).replace(/\.json$/, '');
    if (API_ID_PATTERN.test(apiId) && !broken.has(apiId)) broken.set(apiId, problem);
  }
  return broken;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'nothing' : text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function describe(difference: Outcome['differences'][number]): string {
  if (difference.kind === 'added') return `${difference.path}: added ${show(difference.after)}`;
  if (difference.kind === 'removed') return `${difference.path}: removed (was ${show(difference.before)})`;
  return `${difference.path}: ${show(difference.before)} → ${show(difference.after)}`;
}

function report(outcomes: Outcome[], without: string[], format: string, updated: boolean, configsDir: string, ctx: CliContext): void {
  const failed = outcomes.filter((outcome) => !outcome.ok).length;
  const summary = `${outcomes.length} snapshot${outcomes.length === 1 ? '' : 's'}, ${failed} changed${updated ? ' (updated)' : ''}${without.length > 0 ? `; no snapshots for ${without.join(', ')}` : ''}`;
  if (format === 'json') return writeJson(ctx.stdout, { ok: failed === 0, outcomes, withoutSnapshots: without });
  if (format === 'github') {
    for (const outcome of outcomes.filter((o) => !o.ok)) {
      const file = relative(ctx.cwd, `${configsDir}/${outcome.apiId}.json`);
      const lines = outcome.error
        ? [outcome.error]
        : [...(outcome.health?.findings ?? []), ...outcome.differences.slice(0, 20).map(describe)];
      writeLine(
        ctx.stdout,
        `::error file=${escapeProperty(file)},title=${escapeProperty(`pagejson test ${outcome.apiId}/${outcome.snapshot}`)}::${escapeData(lines.join('\n'))}`,
      );
    }
    return writeLine(ctx.stdout, summary);
  }
  const c = colors(ctx.stdout, ctx.env);
  for (const outcome of outcomes) {
    const mark = outcome.ok ? c.green('✓') : c.red('✗');
    writeLine(
      ctx.stdout,
      `${mark} ${outcome.apiId}/${outcome.snapshot}${outcome.differences.length > 0 ? ` (${outcome.differences.length} difference${outcome.differences.length === 1 ? '' : 's'}${updated ? ', updated' : ''})` : ''}`,
    );
    if (outcome.error) writeLine(ctx.stdout, `    ${c.red(outcome.error)}`);
    if (outcome.health && outcome.health.state !== 'healthy')
      writeLine(ctx.stdout, `    ${c.yellow(`${outcome.health.state}: ${outcome.health.findings.join('; ')}`)}`);
    for (const difference of outcome.differences.slice(0, 20)) writeLine(ctx.stdout, `    ${describe(difference)}`);
    if (outcome.differences.length > 20) writeLine(ctx.stdout, `    … and ${outcome.differences.length - 20} more`);
  }
  writeLine(ctx.stdout, failed === 0 ? c.green(summary) : c.red(summary));
  if (failed > 0 && !updated)
    writeLine(
      ctx.stdout,
      `${c.dim('hint:')} if the new data is right, take it with \`pagejson test --update\`; else fix the config with \`pagejson edit\``,
    );
}
