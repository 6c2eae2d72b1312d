import type { Command } from 'commander';
import { loadProjectConfigs, requireConfig } from '../config-files.js';
import { writeJson, type CliContext } from '../context.js';

/** `pagejson schema <apiId>`: the JSON Schema (2020-12) of the endpoint's `data`, for callers' code generators. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('schema')
    .description("print the JSON Schema of an endpoint's data")
    .argument('<apiId>', 'the endpoint')
    .option('--json', "print the schema as JSON (the only format; accepted like every other command's --json)")
    .action(async (apiId: string, _options: unknown, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const config = requireConfig(project, set, apiId, ctx.cwd);
      const { dataJsonSchema } = await import('../../core/extract/engine/index.js');
      writeJson(ctx.stdout, { ...dataJsonSchema(config.structure), title: `${config.apiId} data` });
    });
}
