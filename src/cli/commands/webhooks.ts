import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { writeJson, writeLine, type CliContext } from '../context.js';
import { colors, renderTable } from '../output.js';
import { projectFor } from '../project-option.js';

/**
 * `pagejson webhooks test <url>` sends a signed test event (Standard Webhooks) to a receiver, through the
 * same address guard as the daemon's deliveries; `pagejson webhooks list` shows the outbox.
 */
export function register(program: Command, ctx: CliContext): void {
  const webhooks = program
    .command('webhooks')
    .description('webhook subscribers (pagejson.json "webhooks"): send a test event, see deliveries')
    .addHelpText(
      'after',
      '\nExamples:\n  PAGEJSON_WEBHOOK_SECRET=whsec_… pagejson webhooks test https://example.com/hooks\n  pagejson webhooks test http://127.0.0.1:9000/hook --secret-env MY_SECRET\n  pagejson webhooks list --json',
    );

  webhooks
    .command('test')
    .description('send a signed `pagejson.test` event to a url now (exit 1 unless the receiver answers 2xx)')
    .argument('<url>', 'the receiver')
    .option('--secret-env <name>', "environment variable holding the signing secret (default: the subscriber's secretEnv in pagejson.json)")
    .option('--json', 'machine output')
    .action(async (url: string, options: { secretEnv?: string; json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new PagejsonError('USAGE', `"${url.slice(0, 200)}" is not a URL`, {
          hint: "write the receiver's full address, e.g. https://example.com/hooks",
        });
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new PagejsonError('USAGE', `webhook urls are http:// or https://, got ${parsed.protocol}`);
      const subscriber = project.settings.webhooks.find((entry) => entry.url === url);
      const secretEnv = options.secretEnv ?? subscriber?.secretEnv;
      if (!secretEnv)
        throw new PagejsonError('USAGE', 'no signing secret: this url is not a subscriber in pagejson.json', {
          hint: 'pass --secret-env NAME (an environment variable holding the secret), or add the url to "webhooks" in pagejson.json',
        });
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(secretEnv))
        throw new PagejsonError('USAGE', `--secret-env takes the name of an environment variable, got "${secretEnv.slice(0, 80)}"`);
      const secret = ctx.env[secretEnv];
      if (!secret)
        throw new PagejsonError('USAGE', `environment variable ${secretEnv} is empty`, {
          hint: `set ${secretEnv} to the signing secret (Standard Webhooks form: whsec_ followed by base64)`,
        });
      // As the daemon's deliveries: a secret under 16 bytes signs nothing (docs/security.md, the webhook secret row).
      const { webhookSecretProblem, WEBHOOK_SECRET_HINT } = await import('../../core/config/webhook-secret.js');
      const weak = webhookSecretProblem(secret, secretEnv);
      if (weak) throw new PagejsonError('USAGE', `${weak}: nothing was sent`, { hint: WEBHOOK_SECRET_HINT });

      const [{ sendSigned }, { newMessageId }, { createGuardedAgent }] = await Promise.all([
        import('../../core/monitor/webhooks/delivery-worker.js'),
        import('../../core/monitor/webhooks/publisher.js'),
        import('../../core/fetch/net/guarded-agent.js'),
      ]);
      const { allowPrivateNetworks } = project.settings.fetch;
      const { timeoutMs } = project.settings.webhookDelivery;
      const dispatcher = createGuardedAgent({ allowPrivateNetworks, timeoutMs });
      const id = newMessageId();
      const at = new Date();
      const payload = JSON.stringify({
        type: 'pagejson.test',
        timestamp: at.toISOString(),
        data: { message: 'a test event from `pagejson webhooks test`' },
      });
      const started = performance.now();
      const result = await sendSigned({ url, id, payload, secret }, { timeoutMs, dispatcher, allowPrivateNetworks, at }).finally(() =>
        dispatcher.close(),
      );
      const ms = Math.round(performance.now() - started);
      if (options.json) writeJson(ctx.stdout, { ok: result.ok, id, status: result.status ?? null, error: result.error ?? null, ms });
      else if (result.ok) writeLine(ctx.stdout, `delivered ${id} to ${url}: ${result.status} in ${ms} ms`);
      else writeLine(ctx.stdout, `not delivered to ${url}: ${result.error}`);
      if (!result.ok) ctx.exitCode = 1;
    });

  webhooks
    .command('list')
    .description('pending deliveries and the latest finished ones')
    .option('--json', 'machine output')
    .action(async (options: { json?: boolean }, command: Command) => {
      const project = await projectFor(command, ctx);
      const { withWatchClient } = await import('../watch-client.js');
      const deliveries = await withWatchClient(project, (client) => client.deliveries(100), ctx.env);
      if (options.json) return writeJson(ctx.stdout, deliveries);
      if (deliveries.length === 0) return writeLine(ctx.stdout, 'no deliveries yet');
      const c = colors(ctx.stdout, ctx.env);
      writeLine(
        ctx.stdout,
        renderTable(
          ['id', 'event', 'url', 'status', 'attempts', 'next attempt', 'last error'],
          deliveries.map((d) => [
            d.id,
            d.type,
            d.url,
            d.status === 'delivered' ? c.green(d.status) : d.status === 'failed' ? c.red(d.status) : c.yellow(d.status),
            d.attempts,
            d.status === 'pending' ? new Date(d.nextAttemptAt).toISOString().slice(0, 19).replace('T', ' ') : '',
            d.lastError,
          ]),
        ),
      );
    });
}
