import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * Fastify makes a pino child logger (an object and its serialised bindings) for every request, and most
 * requests never log: a cache hit logs nothing at the default level. This stand-in makes the child on first
 * use, so a request that does not log allocates one small object instead.
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get #real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#real.level = level;
  }

  // Prototype methods, not arrow fields: nothing is allocated per request beyond the instance.
  fatal(...args: unknown[]): void {
    (this.#real.fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    (this.#real.error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    (this.#real.warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    (this.#real.info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    (this.#real.debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]): void {
    (this.#real.trace as (...a: unknown[]) => void)(...args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real.child(bindings, options);
  }
}

/**
 * The daemon's logger, made here rather than by Fastify. A Fastify app with a logger of its own sets up two
 * listeners on every response, takes two clock readings and runs the completion logging when it finishes,
 * whether or not anything is logged (with the app-wide hooks that went with it, 1–4% of a cache hit's CPU in
 * `bench:compare --together`: decisions.md, "Fastify without a logger of its own").
 * The app is built with `logger: false` and this logger is put in its place: `app.log` is it, and every
 * request's `request.log` a lazy child of it with the request id (`requestLoggers`), so Fastify's own warnings
 * and ours still carry the id. Request lines are logged by the daemon where the answer is made (app.ts).
 */
export function createDaemonLogger(options: FastifyServerOptions['logger'], redact: string[]): Logger {
  if (options === false) return pino({ level: 'silent' });
  // Absent or `true`: info to stdout, as Fastify's default.
  const { stream, ...rest } = (typeof options === 'object' ? options : {}) as LoggerOptions & { stream?: DestinationStream };
  const settings: LoggerOptions = { ...rest, level: rest.level ?? 'info', redact: { paths: redact, censor: '[redacted]' } };
  return stream ? pino(settings, stream) : pino(settings);
}

/** Fastify's childLoggerFactory: children of `root` (the app's Fastify logger, a no-op, is passed and ignored). */
export function requestLoggers(root: Logger): NonNullable<FastifyServerOptions['childLoggerFactory']> {
  return (_fastifyLogger, bindings, options) =>
    new LazyChildLogger(root as unknown as FastifyBaseLogger, bindings, options) as unknown as FastifyBaseLogger;
}
