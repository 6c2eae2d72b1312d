import type { Project } from '../core/config/project.js';
import type { Extractor } from '../core/extract/workers/types.js';
import type { PoolLoginOptions } from '../core/fetch/login/pool-logins.js';

/**
 * The logins of a CLI command's scraper pool (docs/access.md, "Logins"): the sessions the daemon keeps (Redis
 * with PAGEJSON_REDIS_URL, else the project's data dir), so `run`, `validate --live` and the editors sign in
 * only when the daemon has not, and `loggedIn` checked by the command's extractor (in-process when it has none).
 */
export async function cliLogins(
  project: Project,
  env: Record<string, string | undefined>,
  extractor?: Extractor,
): Promise<PoolLoginOptions> {
  const [{ keptLogins }, { resolveRedisUrl }, { createInProcessExtractor }] = await Promise.all([
    import('../core/retrieval/login-probe.js'),
    import('../core/state/redis-connection.js'),
    import('../core/extract/workers/index.js'),
  ]);
  const { maxDepth, maxElements } = project.settings.extraction;
  const probing = extractor ?? createInProcessExtractor({ limits: { maxDepth, maxElements } });
  return keptLogins({ dataDir: project.dataDir, redisUrl: resolveRedisUrl(undefined, env), extractor: () => probing, env });
}
