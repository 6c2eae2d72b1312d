import { Command, CommanderError } from 'commander';
import { createProcessContext, type CliContext } from './context.js';
import { handleCliError } from './handle-error.js';
import { commandModules } from './commands/index.js';
import { EXAMPLES, examplesText } from './examples.js';
import { outputWidth, setTableWidth } from './table-width.js';
import { SECRET_NAME_PATTERN, withAllowedSecrets } from '../core/config/secret-allow-list.js';
import { PagejsonError } from '../core/shared/errors.js';

function collectSecretName(name: string, previous: string[]): string[] {
  if (!SECRET_NAME_PATTERN.test(name))
    throw new PagejsonError('USAGE', `--allow-secret takes an environment variable name, not "${name.slice(0, 60)}"`, {
      hint: 'write --allow-secret NAME (capitals, digits and _), once per variable',
    });
  return [...previous, name];
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('pagejson')
    .description('Turn web pages into versioned JSON API endpoints: generate once with a model, serve with compiled selectors.')
    .version('0.1.0')
    .option('--project <dir>', 'project folder holding pagejson.json (default: search upward from the current folder)')
    .option('--wide', "tables show every column at full width, whatever the terminal's width")
    .option(
      '--allow-secret <NAME>',
      'let configs read this environment variable as ${NAME} (repeatable; adds to PAGEJSON_SECRETS, nothing is allowed by default)',
      collectSecretName,
      [],
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    });
  // Tables fit the terminal (output.ts) unless --wide; decided once the options are parsed.
  setTableWidth(undefined);
  program.hook('preAction', () => setTableWidth(program.opts<{ wide?: boolean }>().wide ? undefined : outputWidth(ctx.stdout, ctx.env)));
  // The variables configs may read are the operator's to choose (issue 45): every command sees them in its environment.
  program.hook('preAction', () => {
    ctx.env = withAllowedSecrets(ctx.env, program.opts<{ allowSecret: string[] }>().allowSecret);
  });
  for (const register of commandModules) register(program, ctx);
  // Every command, at every depth, inherits the same error behaviour, so a usage error exits 2 instead of
  // commander killing the process with 1, and gets its examples.
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()];
      sub.exitOverride().configureOutput({ writeOut: (t) => ctx.stdout.write(t), writeErr: (t) => ctx.stderr.write(t) });
      sub.showHelpAfterError('(run with --help for usage)');
      const examples = EXAMPLES[name.join(' ')];
      if (examples) sub.addHelpText('after', examplesText(examples));
      walk(sub, name);
    }
  };
  walk(program, []);
  return program;
}

/** Runs the CLI and returns the exit code: 0 success, 1 failure, 2 usage error. */
export async function main(argv: string[], ctx: CliContext = createProcessContext()): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 0;
    return handleCliError(error, ctx);
  }
}
