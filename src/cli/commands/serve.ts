import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { writeLine, type CliContext } from '../context.js';
import { execWithDaemonFlags } from '../daemon-flags.js';
import { projectFor } from '../project-option.js';

/**
 * `pagejson serve [--host H] [--port P] [--redis URL] [--no-watch]`: the retrieval daemon in the foreground. Prints the
 * address once it is ready (scripts wait for that line); logs go to stderr, at PAGEJSON_LOG_LEVEL (default
 * info): readable lines on a terminal, pino JSON otherwise (PAGEJSON_LOG_FORMAT=json|pretty overrides). SIGTERM/SIGINT stop gracefully and exit 0; SIGHUP reloads configs.
 */
interface ServeOptions {
  host?: string;
  port?: string;
  redis?: string;
  watch: boolean;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new PagejsonError('USAGE', `--port must be a number from 0 to 65535, got "${text}"`, { hint: 'e.g. --port 8080' });
  return port;
}

/**
 * Logs a person reads on a terminal are lines (pino-pretty: time, level, message, fields); anywhere else, and
 * with PAGEJSON_LOG_FORMAT=json, they stay pino's JSON, one object per line, for log shippers.
 */
async function logStream(ctx: CliContext): Promise<NodeJS.WritableStream> {
  const format = ctx.env.PAGEJSON_LOG_FORMAT;
  if (format === 'json' || (format !== 'pretty' && !(ctx.stderr as { isTTY?: boolean }).isTTY)) return ctx.stderr;
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    destination: ctx.stderr,
    colorize: !ctx.env.NO_COLOR && Boolean((ctx.stderr as { isTTY?: boolean }).isTTY),
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
    sync: true,
  });
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('serve every config at GET|POST /external/{apiId} with API keys, credits and the cache')
    .option('--host <host>', 'address to bind (default: server.host of pagejson.json, 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default: server.port of pagejson.json, 8080; 0 picks a free one)')
    .option('--redis <url>', 'keep state and cache in Redis, shared by every daemon pointed at it (default: PAGEJSON_REDIS_URL)')
    .option('--no-watch', 'do not reload configs when their files change (SIGHUP still reloads)')
    .action(async (options: ServeOptions, command: Command) => {
      // First of all: the process may be replaced by itself with the daemon's V8 flags (daemon-flags.ts).
      if (ctx.ownsProcess) execWithDaemonFlags(ctx.env);
      const project = await projectFor(command, ctx);
      // Loaded here, not at the top: the daemon's dependencies (Fastify, the stores, prom-client) would
      // otherwise slow down every other command, `--help` included.
      const [{ startServer }, { default: closeWithGrace }] = await Promise.all([
        import('../../daemon/server.js'),
        import('close-with-grace'),
      ]);
      const port = options.port !== undefined ? parsePort(options.port) : undefined;
      const level = ctx.env.PAGEJSON_LOG_LEVEL ?? 'info';
      const stream = await logStream(ctx);
      const server = await startServer({
        project,
        ...(options.host !== undefined ? { host: options.host } : {}),
        ...(port !== undefined ? { port } : {}),
        watch: options.watch,
        env: ctx.env,
        app: { logger: { level, stream } },
        ...(options.redis !== undefined ? { runtime: { redisUrl: options.redis } } : {}),
      });
      server.runtime.subscribe((event) => {
        if (event.kind === 'repair') {
          if ('file' in event)
            server.app.log.warn(
              { apiId: event.apiId, file: event.file, revision: event.revision, recovery: event.recovery },
              event.outcome === 'proposed'
                ? `repair proposed: review it with \`pagejson heal ${event.apiId}\``
                : 'repair applied as a new revision',
            );
          else
            server.app.log.info(
              { apiId: event.apiId, reason: event.reason },
              `no repair ${event.outcome === 'failed' ? '(failed)' : 'found'}`,
            );
        }
        if (event.kind === 'monitor') {
          const { outcome } = event;
          const level = outcome.outcome === 'ok' ? 'info' : 'warn';
          server.app.log[level](
            {
              monitor: outcome.monitorId,
              slot: outcome.slot,
              outcome: outcome.outcome,
              changed: outcome.changed,
              ...(outcome.error ? { error: outcome.error } : {}),
            },
            outcome.changed ? 'monitor run: data changed' : 'monitor run',
          );
        }
        if (event.kind === 'webhook' && event.outcome !== 'delivered') {
          server.app.log.warn(
            { id: event.id, type: event.type, url: event.url, attempts: event.attempts, error: event.error },
            event.outcome === 'failed' ? 'webhook delivery given up' : 'webhook delivery failed; will retry',
          );
        }
        if (event.kind === 'config' && event.change.problems) {
          const kept = event.change.keptPrevious ? ' (the previous revision keeps serving)' : '';
          for (const problem of event.change.problems)
            ctx.stderr.write(`config problem: ${problem.file} ${problem.path}: ${problem.message}${kept}\n`);
        }
      });
      const released = server.runtime.releasedHolds;
      if (released.holds > 0) {
        server.app.log.warn(released, 'refunded the reservations of requests a stopped daemon left unanswered');
      }
      for (const problem of server.runtime.configs.problems())
        ctx.stderr.write(`config problem: ${problem.file} ${problem.path}: ${problem.message}\n`);

      // SIGHUP means reload here, not stop: keep it out of close-with-grace's list.
      closeWithGrace({ delay: 15_000, logger: false, skip: ['SIGHUP'] }, async ({ signal, err }) => {
        if (err) server.app.log.error({ err }, 'fatal error, shutting down');
        else server.app.log.info({ signal }, 'shutting down');
        await server.close();
      });
      process.on('SIGHUP', () => {
        void server.reload().then(async (settings) => {
          server.app.log.info({ configs: server.runtime.configs.list().length }, 'configs reloaded');
          const { describeSettingsReload } = await import('../../daemon/settings-reload.js');
          for (const line of describeSettingsReload(settings)) {
            server.app.log.warn(line);
            ctx.stderr.write(`${line}\n`);
          }
        });
      });

      const store = server.runtime.store as { name: string; url?: string };
      const where = server.admin ? `admin socket ${server.socketPath}` : 'sharing the data dir with another daemon';
      const state = store.name === 'redis' ? `, state in Redis at ${store.url ?? ''}` : '';
      server.app.log.info({ state: store.name, adminSocket: server.admin !== undefined }, 'state driver');
      writeLine(ctx.stdout, `pagejson serving ${server.runtime.configs.list().length} config(s) at ${server.url} (${where}${state})`);
      if (server.metricsUrl) writeLine(ctx.stdout, `metrics at ${server.metricsUrl}/metrics`);
      // The command returns while the server keeps the process alive; close-with-grace exits it.
      await new Promise<never>(() => undefined);
    });
}
