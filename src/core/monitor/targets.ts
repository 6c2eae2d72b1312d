import type { ApiConfig } from '../config/schema.js';
import { checkVariableValues, isDynamic } from '../config/url-template.js';
import { parseSchedule, type Schedule } from './schedule.js';

/** One watched request: a config, and for a dynamic one, one of its `monitor.variables` sets. */
export interface MonitorTarget {
  /** `<apiId>`, or `<apiId>#<n>` for the n-th variable set (n from 1). */
  monitorId: string;
  config: ApiConfig;
  values: Record<string, unknown>;
  schedule: Schedule;
}

/** Why a config's monitor cannot run (validate reports these; the daemon skips such monitors). */
export function monitorProblems(config: ApiConfig): Array<{ path: Array<string | number>; message: string; hint: string }> {
  const monitor = config.monitor;
  if (!monitor) return [];
  const problems: Array<{ path: Array<string | number>; message: string; hint: string }> = [];
  try {
    parseSchedule(monitor.every, config.apiId);
  } catch (error) {
    problems.push({ path: ['monitor', 'every'], message: (error as Error).message, hint: 'write a duration such as "15m" or "1h", or a cron expression such as "0 9 * * *" (UTC)' });
  }
  const sets = monitor.variables ?? [];
  if (isDynamic(config.url) && sets.length === 0) {
    problems.push({ path: ['monitor'], message: 'a dynamic config needs monitor.variables: the variable sets to watch', hint: `add "variables": [{ ${Object.keys(config.variables).map((name) => `"${name}": "…"`).join(', ')} }]` });
  }
  if (!isDynamic(config.url) && sets.length > 0) problems.push({ path: ['monitor', 'variables'], message: 'the url has no placeholders, so it has no variables to watch', hint: 'remove monitor.variables' });
  sets.forEach((values, index) => {
    for (const problem of checkVariableValues(config, values)) problems.push({ path: ['monitor', 'variables', index], message: problem.message, hint: 'give each variable set values its variables accept' });
  });
  return problems;
}

export function monitorTargets(configs: Iterable<ApiConfig>): MonitorTarget[] {
  const targets: MonitorTarget[] = [];
  for (const config of configs) {
    if (!config.monitor || config.status !== 'active' || monitorProblems(config).length > 0) continue;
    const sets = isDynamic(config.url) ? (config.monitor.variables ?? []) : [{}];
    sets.forEach((values, index) => {
      const monitorId = isDynamic(config.url) ? `${config.apiId}#${index + 1}` : config.apiId;
      targets.push({ monitorId, config, values, schedule: parseSchedule(config.monitor!.every, monitorId) });
    });
  }
  return targets;
}
