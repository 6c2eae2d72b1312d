import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

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

export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
