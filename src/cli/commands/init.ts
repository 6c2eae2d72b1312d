import type { Command } from 'commander';
import { resolve } from 'node:path';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

interface InitOptions {
  yes?: boolean;
  json?: boolean;
}

/**
 * `pagejson init [--yes]`. A fresh folder gets pagejson.json (every setting spelled out with its default, so
 * users can see what there is to change), configs/ with the JSON Schemas, and a .gitignore line for the data
 * dir. An existing pagejson.json is never overwritten: without --yes init refuses; with --yes it keeps the
 * settings and refreshes the rest (schemas, configs/, .gitignore), which is what re-running init after an
 * upgrade should do.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('create pagejson.json, configs/ with the JSON Schemas, and a .gitignore line in this folder')
    .option('-y, --yes', 'in an existing project: keep pagejson.json and refresh the schemas, configs/ and .gitignore')
    .option('--json', 'print what was done as JSON')
    .action(async (options: InitOptions, command: Command) => {
      const rootDir = resolve(ctx.cwd, command.parent?.opts<{ project?: string }>().project ?? '.');
      const { initProject } = await import('../init-project.js');
      const report = await initProject(rootDir, Boolean(options.yes), ctx);
      if (options.json) {
        writeJson(ctx.stdout, report);
        return;
      }
      const c = colors(ctx.stdout, ctx.env);
      for (const line of report.created) writeLine(ctx.stdout, `${c.green('created')}  ${line}`);
      for (const line of report.updated) writeLine(ctx.stdout, `${c.yellow('updated')}  ${line}`);
      for (const line of report.kept) writeLine(ctx.stdout, `${c.dim('kept')}     ${line}`);
      writeLine(ctx.stdout);
      writeLine(ctx.stdout, `next: ${c.bold('pagejson generate <url>')} to create your first endpoint, then ${c.bold('pagejson serve')}`);
    });
}
