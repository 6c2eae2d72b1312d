import type { Command } from 'commander';
import { PagejsonError } from '../../core/shared/errors.js';
import { writeLine, type CliContext } from '../context.js';
import { projectFor } from '../project-option.js';

/**
 * `pagejson worker [--redis URL]`: runs job items from the Redis queue, no HTTP port (docs/jobs.md, "On
 * Redis"). It uses the project's configs, state and cache in that Redis, as the daemons do; any number of
 * workers on any machines share the queue and the per-origin limits. Prints one line once it takes items;
 * SIGTERM/SIGINT finish the items in hand and exit 0 (the rest stay on the queue).
 */
export function register(program: Command, ctx: CliContext): void {
  program
    .command('worker')
    .description('run job items from the Redis queue (no HTTP port); several workers share it')
    .option('--redis <url>', 'the Redis the daemons use (default: PAGEJSON_REDIS_URL)')
    .action(async (options: { redis?: string }, command: Command) => {
      const project = await projectFor(command, ctx);
      const redisUrl = options.redis?.trim() || ctx.env.PAGEJSON_REDIS_URL?.trim();
      if (!redisUrl)
        throw new PagejsonError('USAGE', 'pagejson worker takes its items from Redis, and no Redis was given', {
          hint: 'pass --redis redis://host:6379 or set PAGEJSON_REDIS_URL, the same Redis as the daemons (`pagejson serve --redis`)',
        });
      const [{ createRuntime }, { default: closeWithGrace }] = await Promise.all([
        import('../../core/runtime.js'),
        import('close-with-grace'),
      ]);
      const runtime = await createRuntime(project, { env: ctx.env, redisUrl, jobWorker: true, watch: true });
      runtime.subscribe((event) => {
        // One line per input it ended and per job it saw end: the operator's log of what this worker did.
        if (event.kind === 'job-item') writeLine(ctx.stderr, `job ${event.jobId} item ${event.index}: ${event.outcome}`);
        if (event.kind === 'job-finished') writeLine(ctx.stderr, `job ${event.job.id} ${event.job.state}`);
      });
      closeWithGrace({ delay: 60_000, logger: false }, async () => {
        await runtime.close();
      });
      const { describeRedisUrl } = await import('../../core/state/redis-connection.js');
      writeLine(
        ctx.stdout,
        `pagejson worker taking job items from ${describeRedisUrl(redisUrl)} (${project.settings.jobs.concurrency} at once)`,
      );
      // The command never returns while the worker runs (bin/pagejson.js would end the process); close-with-grace exits it.
      await new Promise<never>(() => undefined);
    });
}
