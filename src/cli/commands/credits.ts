import type { Command } from 'commander';
import { formatCredits, fromMilli, toMilli } from '../../core/shared/credit-amounts.js';
import { PagejsonError } from '../../core/shared/errors.js';
import type { AccountBalance } from '../../core/access/accounts.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { projectFor } from '../project-option.js';
import { withStateClient } from '../state-session.js';

/** `pagejson credits [--account A] [--json]` and `pagejson credits grant <credits> [--account A]`. */
export function register(program: Command, ctx: CliContext): void {
  const credits = program
    .command('credits')
    .description('show an account balance; `credits grant` adds credits')
    .option('--account <account>', 'account name', 'default')
    .option('--json', 'print {"account","balance"} with the balance in credits')
    .action(async (options: { account: string; json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const balance = await withStateClient(project, (client) => client.credits(options.account));
      print(ctx, balance, options.json);
    });

  credits
    .command('grant')
    .description('add credits to an account')
    .argument('<credits>', 'how many credits to add, e.g. 50 or 2.5')
    .option('--account <account>', 'account name', 'default')
    .option('--json', 'print {"account","balance"} after the grant')
    .exitOverride()
    .configureOutput({ writeOut: (t) => ctx.stdout.write(t), writeErr: (t) => ctx.stderr.write(t) })
    .action(async (amount: string, options: { account: string; json?: boolean }, command: Command) => {
      const milli = parseCredits(amount);
      // `--account` may be written before `grant`: then the parent command holds it.
      const account =
        command.getOptionValueSource('account') === 'cli'
          ? options.account
          : (command.parent?.opts<{ account: string }>().account ?? options.account);
      const json = options.json ?? command.parent?.opts<{ json?: boolean }>().json;
      const project = await projectFor(command, ctx);
      const balance = await withStateClient(project, (client) => client.grantCredits(account, milli));
      if (json) return print(ctx, balance, true);
      writeLine(
        ctx.stdout,
        `granted ${formatCredits(milli)} credits to ${balance.account}: balance ${formatCredits(balance.milliCredits)} credits`,
      );
    });
}

function parseCredits(text: string): number {
  const value = Number(text);
  const milli = toMilli(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || !Number.isFinite(value) || milli <= 0) {
    throw new PagejsonError('USAGE', `credits must be a positive number, not "${text}"`, { hint: 'e.g. `pagejson credits grant 50`' });
  }
  return milli;
}

function print(ctx: CliContext, balance: AccountBalance, json: boolean | undefined): void {
  if (json) writeJson(ctx.stdout, { account: balance.account, balance: fromMilli(balance.milliCredits) });
  else writeLine(ctx.stdout, `${balance.account}: ${formatCredits(balance.milliCredits)} credits`);
}
