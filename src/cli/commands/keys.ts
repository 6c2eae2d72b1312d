import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import type { CreatedKey, KeyView } from '../../core/access/key-service.js';
import { parseDuration } from '../../core/access/keys.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { projectFor } from '../project-option.js';
import { withStateClient } from '../state-session.js';

/**
 * `pagejson keys create|list|revoke|rotate` (the README's CLI reference). A new key goes to stdout alone (so
 * `KEY=$(pagejson keys create)` works) and the notes about it to stderr; it is shown this once only.
 */
/** A scope naming an endpoint the project does not have is a typo, not a wish: refuse it before a key is made. */
async function checkScope(scope: string[], configsDir: string): Promise<void> {
  if (scope.length === 0)
    throw new PagejsonError('USAGE', '--scope names no endpoint', {
      hint: 'write --scope books,jobs, or leave --scope out for a key that may call every endpoint',
    });
  const { loadConfigDir } = await import('../../core/registry/load.js');
  const { didYouMean } = await import('../../core/shared/did-you-mean.js');
  const known = [...(await loadConfigDir(configsDir)).files.keys()];
  const unknown = scope.find((apiId) => !known.includes(apiId));
  if (unknown !== undefined) {
    throw new PagejsonError('USAGE', `--scope names "${unknown}", which is not an endpoint of this project${didYouMean(unknown, known)}`, {
      hint: known.length > 0 ? `endpoints: ${known.join(', ')}` : 'create an endpoint first with `pagejson generate <url>`',
    });
  }
}

export function register(program: Command, ctx: CliContext): void {
  const keys = program.command('keys').description('create, list, revoke and rotate API keys');
  const sub = (name: string) =>
    keys
      .command(name)
      .exitOverride()
      .configureOutput({ writeOut: (t) => ctx.stdout.write(t), writeErr: (t) => ctx.stderr.write(t) });

  sub('create')
    .description('create an API key (printed once: store it right away)')
    .option('--label <label>', 'a name for the key, e.g. the environment using it')
    .option('--account <account>', 'account whose credits the key spends', 'default')
    .option('--scope <apiIds>', 'comma-separated apiIds the key may call (default: all)')
    .option('--json', 'print {"id","key","account","label","scope","createdAt"}')
    .action(async (options: { label?: string; account: string; scope?: string; json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const scope =
        options.scope === undefined
          ? null
          : options.scope
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
      if (scope) await checkScope(scope, project.configsDir);
      const created = await withStateClient(project, (client) =>
        client.createKey({ account: options.account, label: options.label ?? null, scope }),
      );
      if (options.json) writeJson(ctx.stdout, created);
      else printNewKey(ctx, created, `created key ${created.id} for account ${created.account}${describe(created)}`);
    });

  sub('list')
    .description('list API keys with status, last use, usage and the endpoints they called')
    .option('--json', 'machine output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const list = await withStateClient(project, (client) => client.listKeys());
      if (options.json) return writeJson(ctx.stdout, list);
      if (list.length === 0) return writeLine(ctx.stdout, 'no API keys yet: create one with `pagejson keys create`');
      writeLine(
        ctx.stdout,
        renderTable(
          ['id', 'account', 'label', 'scope', 'status', 'created', 'last used', 'requests', 'endpoints'],
          list.map((k) => [
            k.id,
            k.account,
            k.label,
            k.scope ? k.scope.join(',') : 'all',
            statusText(k),
            day(k.createdAt),
            k.lastUsedAt,
            k.usage.requests,
            k.endpoints.join(',') || null,
          ]),
        ),
      );
    });

  sub('revoke')
    .description('revoke an API key at once')
    .argument('<keyId>', 'the key id shown by `keys list` (k_...)')
    .option('--json', 'machine output')
    .action(async (keyId: string, options: { json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const revoked = await withStateClient(project, (client) => client.revokeKey(keyId));
      if (options.json) writeJson(ctx.stdout, revoked);
      else writeLine(ctx.stdout, `revoked key ${revoked.id}`);
    });

  sub('rotate')
    .description('issue a new key with the same account, label and scope; the old one stops after the grace period')
    .argument('<keyId>', 'the key id to replace')
    .option('--grace <duration>', 'how long the old key keeps working: 0, 30m, 24h, 7d', '0')
    .option('--json', 'print the new key as `keys create --json` does, plus the old key under "rotated"')
    .action(async (keyId: string, options: { grace: string; json?: boolean }, command: Command) => {
      const graceMs = parseDuration(options.grace);
      if (graceMs === undefined)
        throw new PagejsonError('USAGE', `--grace must be a duration such as 30m, 24h or 7d, not "${options.grace}"`, {
          hint: 'use --grace 0 to revoke the old key at once',
        });
      const project = await projectFor(command, ctx);
      const { key, previous } = await withStateClient(project, (client) => client.rotateKey(keyId, graceMs));
      if (options.json)
        return writeJson(ctx.stdout, { ...key, rotated: { id: previous.id, status: previous.status, expiresAt: previous.expiresAt } });
      const old =
        previous.status === 'revoked'
          ? `old key ${previous.id} is revoked`
          : `old key ${previous.id} keeps working until ${previous.expiresAt}`;
      printNewKey(ctx, key, `created key ${key.id} to replace ${previous.id}; ${old}`);
    });
}

function printNewKey(ctx: CliContext, created: CreatedKey, summary: string): void {
  const c = colors(ctx.stderr, ctx.env);
  writeLine(ctx.stderr, summary);
  writeLine(ctx.stdout, created.key);
  writeLine(ctx.stderr, c.yellow('Store this key now: it is shown only once (pagejson keeps only its hash).'));
}

function describe(created: CreatedKey): string {
  const parts = [
    created.label ? `label ${created.label}` : undefined,
    created.scope ? `scope ${created.scope.join(',')}` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function statusText(key: KeyView): string {
  if (key.status === 'active' && key.expiresAt) return `active until ${key.expiresAt}`;
  return key.status;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}
