import { basename } from 'node:path';
import type { ConfigProblem } from './problems.js';
import type { ApiConfig } from './schema.js';

/**
 * Rules that span fields and that JSON Schema cannot express. Each returns problems rather than throwing,
 * so `pagejson validate` can report all of them at once.
 */
export function checkConfigRules(config: ApiConfig, file: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const stem = basename(file).replace(/\.json$/, '');
  if (stem !== config.apiId) {
    problems.push({ file, path: '$.apiId', message: `apiId "${config.apiId}" does not match the file name "${stem}.json"`, hint: `rename the file to ${config.apiId}.json or set apiId to "${stem}"` });
  }
  return problems;
}
