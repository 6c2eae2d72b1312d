import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `pagejson validate [FILE...] [--format text|json|github]`: the check CI runs on pull requests. Every
 * problem names the file, the JSON path and what to do; exit code 1 when anything is wrong.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('validate')
    .description('check pagejson.json and every config (or the given files); exit 1 when anything is invalid')
    .argument('[files...]', 'config files to check (default: pagejson.json and every config of the project)')
    .option('--format <format>', 'text, json or github (GitHub Actions annotations)', 'text')
    .option(
      '--live',
      'also fetch each page and check the selectors on it: a section matching nothing is an error, a field matching nothing or an attribute no matched element has is a warning',
    )
    .action(async (files: string[], options: { format: string; live?: boolean }, command: Command) => {
      const { runValidate } = await import('../validate-run.js');
      await runValidate(files, options.format, command.parent?.opts<{ project?: string }>().project, ctx, { live: options.live === true });
    });
}
