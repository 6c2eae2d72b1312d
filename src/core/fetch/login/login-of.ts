import type { LoginSettings } from '../../config/index.js';
import type { FetchLogin } from './types.js';

/**
 * The `login` of a fetch for a config (docs/access.md, "Logins"): pass it beside `url`, as `accessOf` and
 * `actionSteps` are (`fetch({ url, ...loginOf(config) })`). A config without a login adds nothing.
 */
export function loginOf(
  config: { apiId: string; login?: LoginSettings | undefined },
  options: { fresh?: boolean } = {},
): { login?: FetchLogin } {
  if (!config.login) return {};
  return { login: { endpoint: config.apiId, settings: config.login, ...(options.fresh ? { fresh: true } : {}) } };
}
