import type { Project } from '../core/config/project.js';
import type { ApiConfig } from '../core/config/schema.js';
import type { Health } from '../core/health/field-health.js';
import type { EndpointObservation, EndpointRuntimeStatus, HealthBaseline } from '../core/state/types.js';
import type { CliContext } from './context.js';

/**
 * The CLI's side of the one judgement of health (src/core/health/field-health.ts): `run`, `check`, `test` and
 * `heal` judge with the endpoint's baseline as the daemon does — the one kept in the endpoint's status (through
 * the daemon's admin socket while it runs, else the store), else one learned from the snapshots and the
 * generated sample — and `run` and `check` record what they saw there: the last fetch, the health with its
 * findings, and the baseline learned from a healthy retrieval. The state is a help, never a requirement:
 * a command whose state cannot be opened (another command holds it) still judges, from the snapshots.
 */
export interface EndpointBaselines {
  /** The baseline to judge this config with. */
  of(config: ApiConfig): HealthBaseline | undefined;
  /** Whether the state could be read (else observations are not recorded either). */
  readonly stateRead: boolean;
}

export async function loadBaselines(project: Project, configs: ApiConfig[]): Promise<EndpointBaselines> {
  const [{ baselineFor, readSnapshots }, { withStateClient }] = await Promise.all([
    import('../core/health/index.js'),
    import('./state-session.js'),
  ]);
  let states: EndpointRuntimeStatus[] | undefined;
  try {
    states = await withStateClient(project, (client) => client.endpointStates());
  } catch {
    states = undefined;
  }
  const stored = new Map((states ?? []).map((status) => [status.apiId, status.baseline]));
  const baselines = new Map<string, HealthBaseline | undefined>();
  for (const config of configs) {
    const snapshots = await readSnapshots(project.configsDir, config.apiId).catch(() => []);
    const data = snapshots.map((snapshot) => snapshot.record.data);
    baselines.set(config.apiId, baselineFor(config, stored.get(config.apiId), data));
  }
  return { of: (config) => baselines.get(config.apiId), stateRead: states !== undefined };
}

/** What the endpoint's status records of one retrieval: a healthy one teaches the baseline. */
export async function observationOf(
  config: ApiConfig,
  outcome:
    | { fetchedAt: Date; health: Health; data: Record<string, unknown>; headers?: Record<string, string> }
    | { error: string; health?: 'broken'; findings?: string[] },
  baseline: HealthBaseline | undefined,
): Promise<EndpointObservation> {
  if ('error' in outcome) {
    const at = new Date().toISOString();
    return outcome.health === 'broken'
      ? { apiId: config.apiId, at, health: 'broken', failingFields: [], findings: outcome.findings ?? [], error: outcome.error }
      : { apiId: config.apiId, at, error: outcome.error };
  }
  const { learnBaseline } = await import('../core/health/baseline.js');
  const { health } = outcome;
  return {
    apiId: config.apiId,
    at: outcome.fetchedAt.toISOString(),
    health: health.state,
    failingFields: health.failing,
    findings: health.findings,
    ...(health.state === 'healthy'
      ? { baseline: learnBaseline(baseline, config.structure, outcome.data, outcome.headers, health.read) }
      : {}),
  };
}

/** Record observations in the endpoints' status; a state that cannot be opened is said on stderr, not fatal. */
export async function recordObservations(project: Project, observations: EndpointObservation[], ctx: CliContext): Promise<void> {
  if (observations.length === 0) return;
  const { withStateClient } = await import('./state-session.js');
  try {
    await withStateClient(project, (client) => client.observe(observations));
  } catch (error) {
    ctx.stderr.write(`note: the endpoint status was not updated (${(error as Error).message})\n`);
  }
}
