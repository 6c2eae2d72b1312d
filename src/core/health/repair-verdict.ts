import type { ApiConfig } from '../config/index.js';
import type { HealthBaseline } from '../state/index.js';
import { judgeConfig, type Health, type HealthState } from './field-health.js';
import { withoutModelFields } from './model-fields.js';

/**
 * Whether a repair may be saved (issue 47 item 4): only when the endpoint's health with it is better than
 * without it, and no field that is healthy now becomes unhealthy with it. A repair that fixes one field and
 * breaks another is not a repair, however many values it recovers; one that changes nothing the judgement
 * sees is not worth a revision. `reason` says why not, in words a user can act on.
 */
export interface RepairVerdict {
  better: boolean;
  /** Fields healthy now that the repair would make unhealthy, with the finding they would have. */
  worsened: string[];
  /** Failing fields the repair makes healthy. */
  fixed: string[];
  reason?: string;
}

const RANK: Record<HealthState, number> = { healthy: 0, degraded: 1, broken: 2 };

export function repairVerdict(now: Health, withRepair: Health): RepairVerdict {
  const failingNow = new Set(now.failing);
  const failingAfter = new Set(withRepair.failing);
  // A field inside a list that fails now (emptied) is not judged now: it is not healthy, so not made worse.
  const judgedHealthyNow = (path: string) => !failingNow.has(path) && !now.failing.some((failing) => path.startsWith(`${failing}.`));
  const worsened = withRepair.failing.filter(judgedHealthyNow).map((path) => withRepair.findings[withRepair.failing.indexOf(path)] ?? path);
  const fixed = now.failing.filter((path) => !failingAfter.has(path));
  if (worsened.length > 0)
    return { better: false, worsened, fixed, reason: `it would make healthy fields unhealthy: ${worsened.join('; ')}` };
  const rankNow = RANK[now.state];
  const rankAfter = RANK[withRepair.state];
  if (rankAfter < rankNow || (rankAfter === rankNow && fixed.length > 0)) return { better: true, worsened, fixed };
  if (now.state === 'healthy') return { better: false, worsened, fixed, reason: 'the endpoint is healthy without it' };
  return {
    better: false,
    worsened,
    fixed,
    reason: `it repairs none of the failing fields (${now.failing.join(', ') || 'none named'}): the endpoint would stay ${withRepair.state}`,
  };
}

/**
 * The health without and with a repair, on the page the repair worked on, and the verdict: one function for
 * `pagejson heal` and the daemon's `apply`. A paginated endpoint's lists were learned over all its pages and the
 * repair sees the first, so they are not judged by count here.
 */
export function judgeRepair(
  config: ApiConfig,
  proposal: { config: ApiConfig; data: Record<string, unknown>; before: Record<string, unknown> },
  learned: HealthBaseline | undefined,
): { now: Health; withRepair: Health; verdict: RepairVerdict } {
  const baseline =
    config.pagination && learned
      ? { ...learned, fields: learned.fields.map(({ counts: _counts, pages: _pages, ...entry }) => entry) }
      : learned;
  // Judged on what selectors read: the model fields are the model's when served, never in a repair's extraction.
  const selected = (of: ApiConfig): ApiConfig => ({ ...of, structure: withoutModelFields(of.structure) });
  const now = judgeConfig(selected(config), proposal.before, baseline);
  const withRepair = judgeConfig(selected(proposal.config), proposal.data, baseline);
  return { now, withRepair, verdict: repairVerdict(now, withRepair) };
}
