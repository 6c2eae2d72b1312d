import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import type { DataChange } from '../../core/monitor/diff.js';
import type { HistoryEntry } from '../../core/monitor/store.js';
import { loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';

/**
 * `pagejson monitor list | history <apiId> | run <apiId>`: the schedules (`monitor` in a config), what
 * changed between runs, and a run now. Through the daemon when one runs, else in this process.
 */
export function register(program: Command, ctx: CliContext): void {
  const monitor = program
    .command('monitor')
    .description('scheduled refreshes: list them, show what changed, run one now')
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson edit jobs --set monitor.every=15m\n  pagejson monitor list\n  pagejson monitor history jobs\n  pagejson monitor run jobs --json',
    );

  monitor
    .command('list')
    .description('every monitor with its schedule, next run and last run')
    .option('--json', 'machine output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { project } = await loadProjectConfigs(command, ctx);
      const { withWatchClient } = await import('../watch-client.js');
      const monitors = await withWatchClient(project, (client) => client.list(), ctx.env);
      if (options.json) return writeJson(ctx.stdout, monitors);
      if (monitors.length === 0) return writeLine(ctx.stdout, 'no monitors: add one with `pagejson edit <apiId> --set monitor.every=15m`');
      const c = colors(ctx.stdout, ctx.env);
      writeLine(
        ctx.stdout,
        renderTable(
          ['monitor', 'every', 'variables', 'next run', 'last run', 'outcome', 'error'],
          monitors.map((m) => [
            m.monitorId,
            m.every,
            Object.keys(m.variables).length > 0 ? JSON.stringify(m.variables) : '',
            shortTime(m.nextRunAt),
            shortTime(m.lastRunAt),
            outcomeCell(m.lastOutcome, c),
            m.lastError,
          ]),
        ),
      );
    });

  monitor
    .command('history')
    .description('the changes and health events of an endpoint, newest first')
    .argument('<apiId>', 'the endpoint')
    .option('--limit <n>', 'how many entries', '20')
    .option('--json', 'machine output')
    .action(async (apiId: string, options: { json?: boolean; limit: string }, command: Command) => {
      const { project } = await knownApiId(command, apiId);
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1_000)
        throw new PagejsonError('USAGE', `--limit must be a whole number from 1 to 1000, got "${options.limit}"`);
      const { withWatchClient } = await import('../watch-client.js');
      const entries = await withWatchClient(project, (client) => client.history(apiId, limit), ctx.env);
      if (options.json) return writeJson(ctx.stdout, entries);
      if (entries.length === 0)
        return writeLine(
          ctx.stdout,
          `no changes recorded for ${apiId} yet (a monitor records one when a run's data differs from the last run's)`,
        );
      const c = colors(ctx.stdout, ctx.env);
      for (const entry of entries) for (const line of describeEntry(entry, c)) writeLine(ctx.stdout, line);
    });

  monitor
    .command('run')
    .description("run an endpoint's monitor now (exit 1 when a run fails or comes out broken)")
    .argument('<apiId>', 'the endpoint')
    .option('--json', 'machine output')
    .action(async (apiId: string, options: { json?: boolean }, command: Command) => {
      const { project, set } = await knownApiId(command, apiId);
      if (!requireConfig(project, set, apiId, ctx.cwd).monitor)
        throw new PagejsonError('USAGE', `${apiId} has no monitor`, {
          hint: `add one with \`pagejson edit ${apiId} --set monitor.every=15m\``,
        });
      const { withWatchClient } = await import('../watch-client.js');
      const outcomes = await withWatchClient(project, (client) => client.run(apiId), ctx.env);
      const failed = outcomes.some(
        (outcome) => outcome.outcome === 'error' || outcome.outcome === 'broken' || outcome.outcome === 'blocked',
      );
      if (options.json) writeJson(ctx.stdout, outcomes);
      else {
        const c = colors(ctx.stdout, ctx.env);
        for (const outcome of outcomes) {
          writeLine(
            ctx.stdout,
            `${outcome.monitorId}: ${outcomeCell(outcome.outcome, c)}${outcome.error ? ` — ${outcome.error}` : ''}${outcome.changed ? ', data changed' : outcome.outcome === 'ok' ? ', no change' : ''}`,
          );
          if (outcome.diff) for (const line of describeDiff(outcome.diff)) writeLine(ctx.stdout, `  ${line}`);
        }
      }
      if (failed) ctx.exitCode = 1;
    });

  /** The project, once the apiId names one of its configs (the same message and did-you-mean as `run`, `show`…). */
  async function knownApiId(command: Command, apiId: string) {
    const loaded = await loadProjectConfigs(command, ctx);
    requireConfig(loaded.project, loaded.set, apiId, ctx.cwd);
    return loaded;
  }
}

function shortTime(iso: string | null): string {
  return iso ? iso.slice(0, 19).replace('T', ' ') : '';
}

function outcomeCell(outcome: string | null, c: ReturnType<typeof colors>): string {
  if (!outcome) return '';
  return outcome === 'ok' ? c.green(outcome) : outcome === 'degraded' ? c.yellow(outcome) : c.red(outcome);
}

const short = (value: unknown): string => {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

export function describeDiff(diff: DataChange): string[] {
  return [
    ...diff.added.map((entry) => `+ ${entry.path}${entry.key ? `[${entry.key}]` : ''} ${short(entry.item)}`),
    ...diff.removed.map((entry) => `- ${entry.path}${entry.key ? `[${entry.key}]` : ''} ${short(entry.item)}`),
    ...diff.changed.map((entry) => `~ ${entry.path}: ${short(entry.from)} → ${short(entry.to)}`),
  ];
}

function describeEntry(entry: HistoryEntry, c: ReturnType<typeof colors>): string[] {
  const head = `${shortTime(entry.at)}  ${entry.kind === 'data.changed' ? c.bold(entry.kind) : entry.kind === 'endpoint.recovered' ? c.green(entry.kind) : c.yellow(entry.kind)}  ${entry.monitorId}`;
  const lines = [head];
  if (entry.variables && Object.keys(entry.variables).length > 0) lines.push(`  variables ${JSON.stringify(entry.variables)}`);
  if (entry.failingFields && entry.failingFields.length > 0) lines.push(`  failing: ${entry.failingFields.join(', ')}`);
  if (entry.detail) lines.push(`  ${entry.detail}`);
  if (entry.diff) for (const line of describeDiff(entry.diff)) lines.push(`  ${line}`);
  return lines;
}
