import { request, type Dispatcher } from 'undici';
import { isPagejsonError } from '../../shared/index.js';
import { WEBHOOK_SECRET_HINT, webhookSecretProblem } from '../../config/index.js';
import { assertAllowedUrlHost, createGuardedAgent } from '../../fetch/index.js';
import type { Delivery, MonitorStore } from '../store.js';
import { signedHeaders } from './signing.js';

/**
 * Sends the webhook outbox. Each pass claims the deliveries that are due (a claim keeps other daemons off
 * them for a while), signs each attempt afresh (Standard Webhooks: the timestamp is the attempt's), POSTs it
 * through the same address guard as the scrapers, and records the outcome before anything else is claimed:
 * a 2xx is final; anything else is retried with exponential backoff (firstRetry, ×2 each time, at most an
 * hour apart) until `retryForMs` after the event, then given up. Nothing here runs on a request's path.
 *
 * At-least-once: a daemon killed after a receiver answered 2xx but before the record was written sends that
 * delivery again after restart, with the same `webhook-id`, which is what receivers deduplicate by.
 */
export interface DeliverySettings {
  timeoutMs: number;
  firstRetryMs: number;
  retryForMs: number;
  allowPrivateNetworks: boolean;
}

export type DeliveryEvent =
  | { kind: 'webhook'; outcome: 'delivered'; id: string; type: string; url: string; attempts: number }
  | { kind: 'webhook'; outcome: 'retry' | 'failed'; id: string; type: string; url: string; attempts: number; error: string };

export interface DeliveryWorker {
  /** Poll the outbox every `pollMs` until stopped. */
  start(): void;
  /** One pass now (and the next soon): after a publish. */
  nudge(): void;
  /** Passes until nothing is due now (the CLI and tests). Returns how many attempts were made. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

export interface DeliveryWorkerOptions {
  store: MonitorStore;
  settings: DeliverySettings;
  env: Record<string, string | undefined>;
  now?: () => number;
  pollMs?: number;
  onEvent?: (event: DeliveryEvent) => void;
}

const MAX_RETRY_GAP_MS = 3_600_000;
const BATCH = 16;

export function retryDelay(attempts: number, firstRetryMs: number): number {
  return Math.min(firstRetryMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_GAP_MS);
}

export interface AttemptResult {
  ok: boolean;
  status?: number;
  error?: string;
}

/** One signed POST. Never throws: the outcome says what happened. */
export async function sendSigned(
  target: { url: string; id: string; payload: string; secret: string },
  options: { timeoutMs: number; dispatcher: Dispatcher; allowPrivateNetworks: boolean; at: Date },
): Promise<AttemptResult> {
  try {
    const url = new URL(target.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { ok: false, error: `webhook url must be http(s), got ${url.protocol}` };
    assertAllowedUrlHost(url, options.allowPrivateNetworks);
    const response = await request(url, {
      method: 'POST',
      dispatcher: options.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'pagejson-webhooks',
        ...signedHeaders(target.secret, target.id, options.at, target.payload),
      },
      body: target.payload,
      signal: AbortSignal.timeout(options.timeoutMs),
      maxRedirections: 0,
    } as Parameters<typeof request>[1]);
    // The body is not needed; it is discarded without being read into memory.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, status: response.statusCode };
    return { ok: false, status: response.statusCode, error: `the receiver answered ${response.statusCode}` };
  } catch (error) {
    const message = isPagejsonError(error)
      ? `${error.message}${error.hint ? ` (${error.hint})` : ''}`
      : (error as Error)?.name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs} ms`
        : ((error as Error)?.message ?? String(error));
    return { ok: false, error: message };
  }
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const now = options.now ?? Date.now;
  const { settings } = options;
  const dispatcher = createGuardedAgent({ allowPrivateNetworks: settings.allowPrivateNetworks, timeoutMs: settings.timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;
  const emit = (event: DeliveryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's failure is not the delivery's
    }
  };

  async function attempt(delivery: Delivery): Promise<void> {
    const secret = options.env[delivery.secretEnv];
    // The signature's timestamp is the wall clock's, whatever clock schedules retries: receivers hold it
    // against their own clock to refuse replays.
    const signedAt = new Date();
    const attempts = delivery.attempts + 1;
    // A short secret signs nothing: its signatures would vouch for what anyone could forge.
    const weak = secret ? webhookSecretProblem(secret, delivery.secretEnv) : null;
    const result = !secret
      ? { ok: false, error: `the signing secret is not set: environment variable ${delivery.secretEnv} is empty` }
      : weak
        ? { ok: false, error: `${weak}: ${WEBHOOK_SECRET_HINT}` }
        : await sendSigned(
            { url: delivery.url, id: delivery.id, payload: delivery.payload, secret },
            { timeoutMs: settings.timeoutMs, dispatcher, allowPrivateNetworks: settings.allowPrivateNetworks, at: signedAt },
          );
    const base = { kind: 'webhook' as const, id: delivery.id, type: delivery.type, url: delivery.url, attempts };
    if (result.ok) {
      await options.store.delivered(delivery.id, now());
      return emit({ ...base, outcome: 'delivered' });
    }
    const error = result.error ?? 'failed';
    const nextAt = now() + retryDelay(attempts, settings.firstRetryMs);
    if (nextAt - delivery.createdAt > settings.retryForMs) {
      await options.store.giveUp(delivery.id, attempts, error, now());
      return emit({ ...base, outcome: 'failed', error });
    }
    await options.store.retryLater(delivery.id, attempts, nextAt, error);
    emit({ ...base, outcome: 'retry', error });
  }

  async function pass(): Promise<number> {
    let made = 0;
    for (;;) {
      if (stopped) return made;
      // The claim outlives the slowest attempt, so no other daemon sends the same delivery meanwhile.
      const due = await options.store.claimDue(now(), settings.timeoutMs * 3 + 5_000, BATCH);
      if (due.length === 0) return made;
      await Promise.all(due.map((delivery) => attempt(delivery).catch(() => undefined)));
      made += due.length;
    }
  }

  function runPass(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = pass().finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void runPass();
      }
    });
    return running;
  }

  return {
    start() {
      if (timer || stopped) return;
      timer = setInterval(() => void runPass().catch(() => undefined), options.pollMs ?? 1_000);
      timer.unref();
      void runPass().catch(() => undefined);
    },
    nudge() {
      if (!stopped) void runPass().catch(() => undefined);
    },
    async drain() {
      let total = 0;
      while (running) total += await running.catch(() => 0);
      total += await runPass();
      return total;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
      await dispatcher.close().catch(() => undefined);
    },
  };
}
