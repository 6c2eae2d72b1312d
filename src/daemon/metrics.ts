import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { allocatorTrims } from './allocator-trim.js';
import type { Runtime } from '../core/runtime.js';

/**
 * Prometheus metrics of one app (its own Registry, so several apps in one process, as in tests, never share
 * counters). apiId labels are only ever the ids of loaded configs: a caller probing random ids must not be
 * able to grow the label set without bound.
 */
export interface DaemonMetrics {
  registry: Registry;
  countRequest(apiId: string | undefined, status: number): void;
  countCache(result: string): void;
  close(): void;
}

export const UNKNOWN_API = '_unknown';

/**
 * A counter for the answer path: prom-client hashes and validates the labels on every inc() (a few percent
 * of a cache hit), so answers add to a plain number per label set, found through one map per label (no key
 * string is built per answer), and the totals reach prom-client when the registry is read. Up to two labels.
 */
function hotCounter<L extends string>(options: {
  name: string;
  help: string;
  labelNames: readonly [L] | readonly [L, L];
  registers: Registry[];
}) {
  const totals = new Map<string, Map<string | number, { labels: Record<L, string>; value: number }>>();
  new Counter<L>({
    ...options,
    labelNames: [...options.labelNames],
    collect() {
      this.reset();
      for (const inner of totals.values())
        for (const { labels, value } of inner.values()) this.inc(labels as Partial<Record<L, string>>, value);
    },
  });
  return {
    /** Adds `by` to the label set (first, second); a counter of one label ignores `second`. */
    inc(first: string, second: string | number = '', by = 1): void {
      let inner = totals.get(first);
      if (!inner) totals.set(first, (inner = new Map()));
      const found = inner.get(second);
      if (found) {
        found.value += by;
        return;
      }
      const values = [first, String(second)];
      inner.set(second, {
        labels: Object.fromEntries(options.labelNames.map((name, i) => [name, values[i]!])) as Record<L, string>,
        value: by,
      });
    },
  };
}

/** The metrics fed by the runtime's events (fetches, credits, answers' health, monitor runs, webhooks, job items); returns the unsubscribe. */
function subscribeEventMetrics(runtime: Runtime, registry: Registry, label: (apiId: string | undefined) => string): () => void {
  const fetchDuration = new Histogram({
    name: 'pagejson_fetch_duration_seconds',
    help: 'Fetch + extraction time of source pages',
    labelNames: ['api_id', 'scraper', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  });
  const creditsDebited = hotCounter({
    name: 'pagejson_credits_debited_total',
    help: 'Credits debited by retrievals (refunds subtracted)',
    labelNames: ['api_id'],
    registers: [registry],
  });
  const creditsRefunded = new Counter({
    name: 'pagejson_credits_refunded_total',
    help: 'Credits refunded after failed retrievals',
    labelNames: ['api_id'],
    registers: [registry],
  });

  const answersByHealth = hotCounter({
    name: 'pagejson_answers_by_health_total',
    help: 'Retrieval answers by field health (healthy, degraded, broken)',
    labelNames: ['api_id', 'health'],
    registers: [registry],
  });

  const monitorRuns = new Counter({
    name: 'pagejson_monitor_runs_total',
    help: 'Scheduled and manual monitor runs by outcome (ok, degraded, broken, error) and whether the data changed',
    labelNames: ['api_id', 'outcome', 'changed'],
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'pagejson_webhook_attempts_total',
    help: 'Webhook delivery attempts by event type and outcome (delivered, retry, failed)',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });

  const jobItems = new Counter({
    name: 'pagejson_job_items_total',
    help: "Jobs' inputs by how they ended (data, error, skipped): docs/jobs.md",
    labelNames: ['api_id', 'outcome'],
    registers: [registry],
  });
  const jobsFinished = new Counter({
    name: 'pagejson_jobs_finished_total',
    help: 'Jobs that ended, by state (done, failed, cancelled)',
    labelNames: ['state'],
    registers: [registry],
  });

  return runtime.subscribe((event) => {
    if (event.kind === 'job-item') jobItems.inc({ api_id: label(event.apiId), outcome: event.outcome });
    else if (event.kind === 'job-finished') jobsFinished.inc({ state: event.job.state });
    else if (event.kind === 'fetch')
      fetchDuration.observe(
        { api_id: label(event.apiId), scraper: String(event.scraper), outcome: event.ok ? 'ok' : 'error' },
        event.seconds,
      );
    else if (event.kind === 'debit') creditsDebited.inc(label(event.apiId), '', event.milliCredits / 1000);
    else if (event.kind === 'refund') creditsRefunded.inc({ api_id: label(event.apiId) }, event.milliCredits / 1000);
    else if (event.kind === 'health') answersByHealth.inc(label(event.apiId), event.state);
    else if (event.kind === 'monitor')
      monitorRuns.inc({ api_id: label(event.outcome.apiId), outcome: event.outcome.outcome, changed: String(event.outcome.changed) });
    else if (event.kind === 'webhook') webhookAttempts.inc({ type: event.type, outcome: event.outcome });
  });
}

/**
 * Model tokens as usage holds them (docs/models.md, "Tokens"): every call's prompt and completion tokens,
 * retrieval fills and generations alike (retries and format fallbacks included), per endpoint. Read from the
 * state at scrape time (as `pagejson usage` reads it), so tokens recorded by another process on the same state
 * (a CLI `run`, another daemon on Redis) count too; rows older than the state's retention drop out.
 */
function registerTokenMetrics(runtime: Runtime, registry: Registry, label: (apiId: string | undefined) => string): void {
  new Counter({
    name: 'pagejson_model_tokens_total',
    help: 'Model tokens recorded in usage, by endpoint and type (prompt, completion)',
    labelNames: ['api_id', 'type'],
    registers: [registry],
    async collect() {
      const rows = await runtime.store.usage({}).catch(() => []);
      const sums = new Map<string, { prompt: number; completion: number }>();
      for (const row of rows) {
        if (row.promptTokens === 0 && row.completionTokens === 0) continue;
        const id = label(row.apiId);
        const sum = sums.get(id) ?? { prompt: 0, completion: 0 };
        sum.prompt += row.promptTokens;
        sum.completion += row.completionTokens;
        sums.set(id, sum);
      }
      this.reset();
      for (const [id, sum] of sums) {
        this.inc({ api_id: id, type: 'prompt' }, sum.prompt);
        this.inc({ api_id: id, type: 'completion' }, sum.completion);
      }
    },
  });
}

/** Whether the daemon can return freed memory to the system, and how often it did. */
function registerAllocatorMetrics(registry: Registry): void {
  new Gauge({
    name: 'pagejson_allocator_trim_available',
    help: 'Whether the daemon can return freed memory to the system (1: the native/malloc-trim addon was built)',
    registers: [registry],
    collect() {
      this.set(allocatorTrims().available ? 1 : 0);
    },
  });
  new Counter({
    name: 'pagejson_allocator_trims_total',
    help: 'Times the daemon returned freed memory to the system (malloc_trim after the free bytes grew)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(allocatorTrims().trims);
    },
  });
}

export function createMetrics(runtime: Runtime): DaemonMetrics {
  const registry = new Registry();
  const requests = hotCounter({
    name: 'pagejson_requests_total',
    help: 'Retrieval requests by apiId and HTTP status',
    labelNames: ['api_id', 'status'],
    registers: [registry],
  });
  const cacheResults = hotCounter({
    name: 'pagejson_cache_results_total',
    help: 'Retrieval answers by cache result (HIT, STALE, MISS, BYPASS)',
    labelNames: ['result'],
    registers: [registry],
  });
  const label = (apiId: string | undefined): string => (apiId !== undefined && runtime.configs.get(apiId) ? apiId : UNKNOWN_API);
  const unsubscribe = subscribeEventMetrics(runtime, registry, label);
  registerAllocatorMetrics(registry);
  registerTokenMetrics(runtime, registry, label);

  return {
    registry,
    // label(): an id that is not a loaded config counts as `_unknown`, so probing random ids grows nothing.
    countRequest: (apiId, status) => requests.inc(label(apiId), status),
    countCache: (result) => cacheResults.inc(result),
    close: unsubscribe,
  };
}
