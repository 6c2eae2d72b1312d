import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { open as openFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { PagejsonError } from '../../core/shared/errors.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors } from '../output.js';
import { projectFor } from '../project-option.js';

/**
 * `pagejson dashboard`: a one-time sign-in link to the web dashboard of the running daemon, asked for over
 * its admin socket (only the daemon's user can reach it), printed and opened in the browser unless
 * `--no-open`. `--json` prints `{"url", "expiresAt"}`.
 *
 * The browser is not given the link itself: a command line is readable by every local user
 * (`/proc/<pid>/cmdline`), and the link is a session to whoever uses it first. It is given a page in the
 * data dir (0700), readable by this user only (0600), that sends the browser on to the link (as Jupyter
 * does). docs/dashboard.md, "Signing in".
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
      const page = await writeSignInPage(project.dataDir, link.url);
      const { default: open } = await import('open');
      await open(page).then(
        (child) => child.on('error', () => writeLine(ctx.stderr, c.yellow('could not open a browser here: open the link above yourself'))),
        () => writeLine(ctx.stderr, c.yellow('could not open a browser here: open the link above yourself')),
      );
      return undefined;
    });
}

export const SIGN_IN_PAGE = 'dashboard-sign-in.html';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Writes the page that forwards to the link (mode 0600 from its creation, then renamed into place); returns its path. */
export async function writeSignInPage(dataDir: string, url: string): Promise<string> {
  if (!/^https?:\/\//i.test(url))
    throw new PagejsonError('INTERNAL', 'the daemon answered a sign-in link that is not an http(s) URL', {
      hint: 'restart the daemon, then run `pagejson dashboard` again',
    });
  const href = escapeHtml(url);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>pagejson dashboard</title></head><body><p><a href="${href}">Sign in to the pagejson dashboard</a></p></body></html>\n`;
  const file = join(dataDir, SIGN_IN_PAGE);
  const temp = join(dataDir, `.${SIGN_IN_PAGE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await openFile(temp, 'wx', 0o600);
  try {
    await handle.writeFile(html);
  } finally {
    await handle.close();
  }
  await rename(temp, file).catch(async (error: unknown) => {
    await unlink(temp).catch(() => undefined);
    throw error;
  });
  return file;
}
