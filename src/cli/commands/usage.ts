import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatCredits, fromMilli } from '../../core/shared/credit-amounts.js';
import { PagejsonError } from '../../core/shared/errors.js';
import type { UsageQuery } from '../../core/state/types.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { healthCell } from './status.js';
import { projectFor } from '../project-option.js';
import { withStateClient } from '../state-session.js';

export const DEFAULT_USAGE_DAYS = 30;

/** `pagejson usage [--api ID] [--key KEYID] [--days N] [--json]`: per-day aggregates, newest first. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('usage')
    .description(
      `requests, errors, cache hits, credits and model tokens per day, endpoint and key (last ${DEFAULT_USAGE_DAYS} days by default)`,
    )
    .option('--api <apiId>', 'only this endpoint')
    .option('--key <keyId>', 'only this key id (k_...)')
    .option('--days <n>', 'days back, today included', String(DEFAULT_USAGE_DAYS))
    .option('--json', 'machine output: one object per day, endpoint and key')
    .action(async (options: { api?: string; key?: string; days: string; json?: boolean }, command: Command) => {
      const days = Number(options.days);
      if (!Number.isInteger(days) || days < 1)
        throw new PagejsonError('USAGE', `--days must be a whole number of days, 1 or more, not "${options.days}"`, {
          hint: 'e.g. --days 7',
        });
      const query: UsageQuery = { days };
      if (options.api) query.apiId = options.api;
      if (options.key) query.keyId = options.key;
      const project = await projectFor(command, ctx);
      const [rows, endpoints, keys] = await withStateClient(
        project,
        async (client) => [await client.usage(query), await client.status(), await client.listKeys()] as const,
      );
      // People know their keys by label (`ci`, `partner-x`); the id stays in --json for scripts.
      const labels = new Map(keys.map((key) => [key.id, key.label] as const));
      // A key id or apiId that names nothing (and has no usage left from a key or config since removed) is a
      // usage error, exit 2, as in every command; not an empty table.
      if (rows.length === 0 && options.key && !labels.has(options.key))
        throw new PagejsonError('KEY_NOT_FOUND', `no key with id "${options.key}"`, { hint: 'run `pagejson keys list` to see key ids' });
      if (
        rows.length === 0 &&
        options.api &&
        !endpoints.some((e) => e.apiId === options.api) &&
        !existsSync(join(project.configsDir, `${options.api}.json`))
      )
        throw new PagejsonError('CONFIG_NOT_FOUND', `no config with apiId "${options.api}"`, {
          hint: 'run `pagejson list` to see the endpoints',
        });
      const keyName = (keyId: string | null): string | null => (keyId === null ? null : labels.get(keyId) || keyId);
      if (options.json)
        return writeJson(
          ctx.stdout,
          rows.map((row) => ({
            ...row,
            keyLabel: row.keyId === null ? null : (labels.get(row.keyId) ?? null),
            credits: fromMilli(row.milliCredits),
          })),
        );
      if (rows.length === 0) return writeLine(ctx.stdout, `no usage in the last ${days} day${days === 1 ? '' : 's'}`);
      const total = rows.reduce(
        (sum, row) => ({
          requests: sum.requests + row.requests,
          errors: sum.errors + row.errors,
          hits: sum.hits + row.cacheHits,
          milli: sum.milli + row.milliCredits,
          prompt: sum.prompt + row.promptTokens,
          completion: sum.completion + row.completionTokens,
        }),
        { requests: 0, errors: 0, hits: 0, milli: 0, prompt: 0, completion: 0 },
      );
      writeLine(
        ctx.stdout,
        renderTable(
          ['day', 'endpoint', 'key', 'requests', 'errors', 'cache hits', 'credits', 'prompt tokens', 'completion tokens'],
          [
            ...rows.map((row) => [
              row.day,
              row.apiId,
              keyName(row.keyId),
              row.requests,
              row.errors,
              row.cacheHits,
              formatCredits(row.milliCredits),
              row.promptTokens,
              row.completionTokens,
            ]),
            ['total', '', '', total.requests, total.errors, total.hits, formatCredits(total.milli), total.prompt, total.completion],
          ],
        ),
      );
      // Endpoints that answer but no longer extract what they did (drift): said under the numbers.
      const c = colors(ctx.stdout, ctx.env);
      for (const endpoint of endpoints.filter(
        (e) => (e.health === 'degraded' || e.health === 'broken') && (!options.api || e.apiId === options.api),
      )) {
        writeLine(ctx.stdout, `${endpoint.apiId}: ${healthCell(endpoint, c)}`);
      }
    });
}
