import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { loadProjectConfigs } from '../config-files.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';

function checkServerUrl(text: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new PagejsonError('USAGE', `--server must be an http:// or https:// URL, got "${text.slice(0, 200)}"`, {
      hint: 'write the address callers use to reach the daemon, e.g. --server https://api.example.com',
    });
  }
}

/** `pagejson openapi [--server URL]`: the OpenAPI 3.1 document of every valid endpoint, as JSON on stdout. */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of every endpoint')
    .option('--server <url>', 'base URL of the daemon in the document (default: http://<server.host>:<server.port> of pagejson.json)')
    .option('--json', "print the document as JSON (the only format; accepted like every other command's --json)")
    .action(async (options: { server?: string; json?: boolean }, command: Command) => {
      if (options.server !== undefined) checkServerUrl(options.server);
      const { project, set } = await loadProjectConfigs(command, ctx);
      const { buildOpenApiDocument } = await import('../../core/catalog/openapi.js');
      const { host, port } = project.settings.server;
      const serverUrl = (options.server ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
      writeJson(ctx.stdout, buildOpenApiDocument([...set.configs.values()], { serverUrl, sourceUrls: project.settings.docs.sourceUrls }));
      const invalid = new Set(set.problems.map((p) => p.file)).size;
      if (invalid > 0) {
        writeLine(
          ctx.stderr,
          colors(ctx.stderr, ctx.env).yellow(
            `${invalid} invalid config file${invalid === 1 ? '' : 's'} left out: run \`pagejson validate\` for details`,
          ),
        );
      }
    });
}
