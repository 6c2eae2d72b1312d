import { hasCallerVariables, monitorProblems, parseSchedule, type ApiConfig, type Schedule } from '../config/index.js';

/** One watched request: a config, and for a dynamic one, one of its `monitor.variables` sets. */
export interface MonitorTarget {
  /** `<apiId>`, or `<apiId>#<n>` for the n-th variable set (n from 1). */
  monitorId: string;
  config: ApiConfig;
  values: Record<string, unknown>;
  schedule: Schedule;
}

export function monitorTargets(configs: Iterable<ApiConfig>): MonitorTarget[] {
  const targets: MonitorTarget[] = [];
  for (const config of configs) {
    if (!config.monitor || config.status !== 'active' || monitorProblems(config).length > 0) continue;
    const sets = hasCallerVariables(config) ? (config.monitor.variables ?? []) : [{}];
    sets.forEach((values, index) => {
      const monitorId = hasCallerVariables(config) ? `${config.apiId}#${index + 1}` : config.apiId;
      targets.push({ monitorId, config, values, schedule: parseSchedule(config.monitor!.every, monitorId) });
    });
  }
  return targets;
}
