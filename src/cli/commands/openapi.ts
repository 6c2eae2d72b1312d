import type { Command } from 'commander';
import { loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

/** `pagejson openapi [--server URL]`: the OpenAPI 3.1 document of every valid endpoint, as JSON on stdout. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of every endpoint')
    .option('--server <url>', 'base URL of the daemon in the document (default: http://<server.host>:<server.port> of pagejson.json)')
    .action(async (options: { server?: string }, command: Command) => {
      const { project, set } = await loadProjectConfigs(command, ctx);
      const { buildOpenApiDocument } = await import('../../core/openapi.js');
      const { host, port } = project.settings.server;
      const serverUrl = (options.server ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
      writeJson(ctx.stdout, buildOpenApiDocument([...set.configs.values()], { serverUrl }));
      const invalid = new Set(set.problems.map((p) => p.file)).size;
      if (invalid > 0) {
        writeLine(ctx.stderr, colors(ctx.stderr, ctx.env).yellow(`${invalid} invalid config file${invalid === 1 ? '' : 's'} left out: run \`pagejson validate\` for details`));
      }
    });
}
