import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { projectFor } from '../project-option.js';

/**
 * `pagejson dashboard`: a one-time sign-in link to the web dashboard of the running daemon, asked for over
 * its admin socket (only the daemon's user can reach it), printed and opened in the browser unless
 * `--no-open`. `--json` prints `{"url", "expiresAt"}`.
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('dashboard')
    .description('sign in to the web dashboard of the running daemon: prints a one-time link and opens it')
    .option('--no-open', 'print the link without opening a browser')
    .option('--json', 'print {"url", "expiresAt"} as JSON (never opens a browser)')
    .action(async (options: { open: boolean; json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      // The client pulls in undici, lowdb and the config loader: loaded when the command runs, not at every CLI start.
      const { adminCaller, adminSocketPath, openAdminConnection } = await import('../state-client.js');
      const connection = await openAdminConnection(adminSocketPath(project.dataDir), 2_000);
      if (!connection) {
        throw new PagejsonError('DAEMON_UNREACHABLE', 'no daemon is running for this project', {
          hint: 'start it with `pagejson serve` (in another terminal, or as a service), then run `pagejson dashboard` again',
        });
      }
      let link: { url: string; expiresAt: string };
      try {
        link = await adminCaller(connection.client)<{ url: string; expiresAt: string }>('POST', '/dashboard/login-link', {});
      } finally {
        await connection.client.close().catch(() => undefined);
      }
      if (options.json) return writeJson(ctx.stdout, link);
      const c = colors(ctx.stdout, ctx.env);
      writeLine(ctx.stdout, link.url);
      writeLine(ctx.stderr, c.dim(`one-time sign-in link, valid until ${new Date(link.expiresAt).toLocaleTimeString()}; do not share it`));
      if (!options.open) return undefined;
      const { default: open } = await import('open');
      await open(link.url).then(
        (child) => child.on('error', () => writeLine(ctx.stderr, c.yellow('could not open a browser here: open the link above yourself'))),
        () => writeLine(ctx.stderr, c.yellow('could not open a browser here: open the link above yourself')),
      );
      return undefined;
    });
}
