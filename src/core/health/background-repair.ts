import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { PagejsonError, writeFileAtomic } from '../shared/index.js';
import { actionSteps, resolveSourceUrl, type ApiConfig } from '../config/index.js';
import { openConfigForEdit, saveEditedConfig } from '../edit/index.js';
import { accessOf, type Scraper } from '../fetch/index.js';
import type { HealthBaseline } from '../state/index.js';
import { baselineFor, expectedData } from './field-health.js';
import { judgeRepair } from './repair-verdict.js';
import { repairIsolated, type IsolatedRepairSettings } from './isolated-repair.js';
import { writeProposal } from './proposals.js';
import { readSnapshots, SNAPSHOT_DIR } from './snapshots.js';

/**
 * The daemon's own repairs (`heal` in pagejson.json): when a retrieval comes out degraded or broken, a repair
 * is worked out in the background, once per endpoint and revision, one at a time, never on the request's
 * path. `propose` writes `configs/<apiId>.proposed.json` beside the reviewed file; `apply` saves the repair
 * as the next revision (hot reload serves it), keeping the reviewed one as
 * `configs/__snapshots__/<apiId>/revision-<n>.json`; `off` does nothing. The work on the page runs in a thread
 * of its own with `pagejson heal`'s budget (isolated-repair.ts): a hostile page ends that thread with the
 * budget's error, recorded as the repair's failure, and the daemon keeps answering meanwhile.
 */
export type HealMode = 'off' | 'propose' | 'apply';

export type RepairEvent =
  | {
      kind: 'repair';
      apiId: string;
      outcome: 'proposed' | 'applied';
      file: string;
      revision: number;
      recovery: { found: number; total: number };
    }
  | { kind: 'repair'; apiId: string; outcome: 'none' | 'failed'; reason: string };

export interface BackgroundRepairOptions {
  mode: HealMode;
  configsDir: string;
  scraperFor(config: ApiConfig): Scraper;
  /** The models, their environment and the timeouts the repair's thread and budget are made of. */
  thread: IsolatedRepairSettings;
  onEvent?(event: RepairEvent): void;
  /** Deadline of a repair's fetch, ms. */
  timeoutMs: number;
}

export interface BackgroundRepair {
  /** A retrieval of this config (with these values) came out degraded or broken; `lastGood`: the latest healthy data kept in its status. */
  unhealthy(config: ApiConfig, values: Record<string, unknown>, lastGood?: Record<string, unknown>, baseline?: HealthBaseline): void;
  /** Resolves when every scheduled repair has finished (tests, shutdown). */
  idle(): Promise<void>;
  /** Ends the repair under way (its fetch and its thread) and starts no other; resolves when all have settled. */
  close(): Promise<void>;
}

export function createBackgroundRepair(options: BackgroundRepairOptions): BackgroundRepair {
  // Bounded: a daemon serving thousands of endpoints remembers the latest attempts only.
  const attempted = new LRUCache<string, true>({ max: 10_000 });
  let chain: Promise<void> = Promise.resolve();
  const closing = new AbortController();
  const emit = (event: RepairEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's failure is not the repair's
    }
  };

  async function repair(config: ApiConfig, values: Record<string, unknown>, lastGood?: Record<string, unknown>, stored?: HealthBaseline) {
    const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), closing.signal]);
    const snapshots = await readSnapshots(options.configsDir, config.apiId).catch(() => []);
    const snapshot = snapshots.at(0);
    const expected = (snapshot?.record.data ?? lastGood ?? expectedData(config)) as Record<string, unknown> | undefined;
    if (!expected)
      return emit({ kind: 'repair', apiId: config.apiId, outcome: 'none', reason: 'no last good values (no snapshot, no sample)' });
    const page = await options.scraperFor(config).fetch({
      url: resolveSourceUrl(config, values),
      session: config.session && config.scraper === 1,
      signal,
      ...accessOf(config),
      ...actionSteps(config, values),
    });
    const proposal = await repairIsolated({ config, html: page.html, pageUrl: page.finalUrl, expected }, options.thread, closing.signal);
    if (proposal.changes.length === 0 || proposal.recovery.found === 0)
      return emit({ kind: 'repair', apiId: config.apiId, outcome: 'none', reason: 'none of the last good values was found on the page' });
    if (options.mode === 'apply') {
      // Never worse (issue 47): saved only when the health with it is better and no healthy field fails with it.
      const baseline = baselineFor(
        config,
        stored,
        snapshots.map((each) => each.record.data),
      );
      const { verdict } = judgeRepair(config, proposal, baseline);
      if (!verdict.better)
        return emit({ kind: 'repair', apiId: config.apiId, outcome: 'none', reason: `nothing saved: ${verdict.reason}` });
      const file = `${options.configsDir}/${config.apiId}.json`;
      const editable = await openConfigForEdit(file);
      // Only over the revision that failed: a file edited meanwhile is the user's and stays as it is.
      if (editable.original.revision !== config.revision)
        return emit({ kind: 'repair', apiId: config.apiId, outcome: 'none', reason: 'the file changed meanwhile' });
      // The reviewed revision is kept beside the snapshots before the file is replaced: nothing is lost.
      const keep = join(options.configsDir, SNAPSHOT_DIR, config.apiId, `revision-${config.revision}.json`);
      await mkdir(dirname(keep), { recursive: true });
      await writeFileAtomic(keep, editable.text);
      await saveEditedConfig(editable, proposal.config);
      return emit({
        kind: 'repair',
        apiId: config.apiId,
        outcome: 'applied',
        file,
        revision: proposal.config.revision,
        recovery: proposal.recovery,
      });
    }
    const file = await writeProposal(options.configsDir, proposal.config);
    emit({
      kind: 'repair',
      apiId: config.apiId,
      outcome: 'proposed',
      file,
      revision: proposal.config.revision,
      recovery: proposal.recovery,
    });
  }

  return {
    unhealthy(config, values, lastGood, baseline) {
      if (options.mode === 'off' || closing.signal.aborted) return;
      const key = `${config.apiId}\u0000${config.revision}`;
      if (attempted.has(key)) return;
      attempted.set(key, true);
      // One at a time, after whatever runs: repairs never compete with each other for the source.
      chain = chain
        .then(() => repair(config, values, lastGood, baseline))
        .catch((error: unknown) =>
          emit({ kind: 'repair', apiId: config.apiId, outcome: 'failed', reason: (error as Error)?.message ?? String(error) }),
        );
    },
    idle: () => chain,
    close() {
      closing.abort(new PagejsonError('SHUTTING_DOWN', 'the daemon is shutting down'));
      return chain;
    },
  };
}
