import type { ApiConfig } from './schema.js';
import { parseSchedule } from './schedule.js';
import { checkVariableValues, hasCallerVariables } from './url-template.js';

/** Why a config's monitor cannot run (validate reports these; the daemon skips such monitors). */
export function monitorProblems(config: ApiConfig): Array<{ path: Array<string | number>; message: string; hint: string }> {
  const monitor = config.monitor;
  if (!monitor) return [];
  const problems: Array<{ path: Array<string | number>; message: string; hint: string }> = [];
  try {
    parseSchedule(monitor.every, config.apiId);
  } catch (error) {
    problems.push({
      path: ['monitor', 'every'],
      message: (error as Error).message,
      hint: 'write a duration such as "15m" or "1h", or a cron expression such as "0 9 * * *" (UTC)',
    });
  }
  const sets = monitor.variables ?? [];
  if (hasCallerVariables(config) && sets.length === 0) {
    problems.push({
      path: ['monitor'],
      message: 'a dynamic config needs monitor.variables: the variable sets to watch',
      hint: `add "variables": [{ ${Object.keys(config.variables)
        .map((name) => `"${name}": "…"`)
        .join(', ')} }]`,
    });
  }
  if (!hasCallerVariables(config) && sets.length > 0)
    problems.push({
      path: ['monitor', 'variables'],
      message: 'the url has no placeholders, so it has no variables to watch',
      hint: 'remove monitor.variables',
    });
  sets.forEach((values, index) => {
    for (const problem of checkVariableValues(config, values))
      problems.push({
        path: ['monitor', 'variables', index],
        message: problem.message,
        hint: 'give each variable set values its variables accept',
      });
  });
  return problems;
}
