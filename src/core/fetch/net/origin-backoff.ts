import { PagejsonError } from '../../shared/index.js';

/**
 * Beside the origin queue (origin-queue.ts): an origin that answered 429 is left alone until its Retry-After
 * has passed, or, without one, a backoff (30 s, doubling with each 429 in a row, at most 15 minutes). Every
 * fetch of that origin meanwhile fails at once with SOURCE_RATE_LIMITED and the seconds left, without touching
 * the source (docs/block-pages.md). Per process: each daemon sharing a Redis learns it from its own 429.
 */
export const DEFAULT_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
/** A Retry-After further away than this is read as this: a source cannot switch an endpoint off for days. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** Origins remembered at most; the oldest is forgotten first (its wait is usually over by then). */
const MAX_ORIGINS = 10_000;

export interface OriginBackoff {
  /** Throws SOURCE_RATE_LIMITED while `origin` is left alone. */
  check(origin: string, url: string): void;
  /** The origin answered 429 (with its Retry-After header, if any): the error to fail with. */
  limited(origin: string, url: string, retryAfter: string | undefined): PagejsonError;
  /** The origin answered after its pause: its backoff starts again from the first step. */
  answered(origin: string): void;
  /** Seconds until `origin` may be asked again (0: now). */
  secondsLeft(origin: string): number;
}

interface Pause {
  until: number;
  /** 429s in a row: the next backoff without Retry-After doubles with each. */
  strikes: number;
}

/** Retry-After in ms from `now`: delay-seconds or an HTTP-date; undefined when it is neither. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function rateLimitedError(url: string, seconds: number): PagejsonError {
  return new PagejsonError('SOURCE_RATE_LIMITED', `the source asked to be left alone (HTTP 429); try again in ${seconds} s`, {
    context: {
      url,
      retryAfterSeconds: seconds,
      wireHint:
        'pagejson does not ask the source again before then; a proxy (docs/access.md) or a longer cache.freshMinutes spreads the load',
    },
    hint: `pagejson asks ${new URL(url).origin} again in ${seconds} s; if it happens often, raise cache.freshMinutes in pagejson.json, lower fetch.perOriginConcurrency, or fetch through proxies (docs/access.md)`,
  });
}

export function createOriginBackoff(now: () => number = Date.now): OriginBackoff {
  const pauses = new Map<string, Pause>();

  const secondsLeft = (origin: string): number => {
    const pause = pauses.get(origin);
    if (!pause) return 0;
    const left = pause.until - now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  };

  return {
    check(origin, url) {
      const seconds = secondsLeft(origin);
      if (seconds > 0) throw rateLimitedError(url, seconds);
    },
    limited(origin, url, retryAfter) {
      const previous = pauses.get(origin);
      const strikes = (previous?.strikes ?? 0) + 1;
      const asked = parseRetryAfter(retryAfter, now());
      const wait =
        asked !== undefined ? Math.min(asked, MAX_RETRY_AFTER_MS) : Math.min(DEFAULT_BACKOFF_MS * 2 ** (strikes - 1), MAX_BACKOFF_MS);
      pauses.delete(origin);
      if (pauses.size >= MAX_ORIGINS) pauses.delete(pauses.keys().next().value!);
      pauses.set(origin, { until: now() + wait, strikes });
      return rateLimitedError(url, Math.max(1, Math.ceil(wait / 1000)));
    },
    answered(origin) {
      // A fetch that started before the 429 may answer after it: the pause stands until it is over.
      const pause = pauses.size > 0 ? pauses.get(origin) : undefined;
      if (pause && pause.until <= now()) pauses.delete(origin);
    },
    secondsLeft,
  };
}
