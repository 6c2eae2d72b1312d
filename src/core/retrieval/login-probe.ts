import type { Extractor } from '../extract/index.js';
import {
  createFileSessionStore,
  createRedisSessionStore,
  type FetchResult,
  type LoggedInProbe,
  type PoolLoginOptions,
} from '../fetch/index.js';

/**
 * The `loggedIn` check of a login (docs/access.md, "Logins"), run where pages are parsed: the extractor (in the
 * daemon, the worker pool with its budget and document limits), never on the event loop. The selector is the
 * job's section: the page shows it when the section is found.
 */
const PROBE_FIELD = [{ name: 'present', type: 'string' as const }];

export function loggedInProbe(extractor: Extractor): LoggedInProbe {
  return async (page: FetchResult, selector: string, signal: AbortSignal | undefined) => {
    const outcome = await extractor.extract(
      {
        config: { apiId: 'login-check', revision: 1, selector, structure: PROBE_FIELD },
        // The bytes stay with the page: the endpoint's own extraction reads them next.
        ...(page.body ? { body: page.body } : { html: page.html }),
        finalUrl: page.finalUrl,
        wantSection: true,
      },
      signal,
    );
    return typeof outcome.sectionHtml === 'string' && outcome.sectionHtml.length > 0;
  };
}

/**
 * The logins of a scraper pool that keeps sessions (docs/access.md, "Logins"): in Redis when the state is there
 * (daemons sharing it share one session per endpoint), else under the data dir; `loggedIn` checked by the
 * extractor (given late: the pool is made before the extraction pool in the runtime).
 */
export function keptLogins(options: {
  dataDir: string;
  redisUrl?: string | undefined;
  extractor: () => Extractor;
  env?: Readonly<Record<string, string | undefined>>;
}): PoolLoginOptions {
  return {
    store: options.redisUrl ? createRedisSessionStore({ url: options.redisUrl }) : createFileSessionStore(options.dataDir),
    probe: (page, selector, signal) => loggedInProbe(options.extractor())(page, selector, signal),
    ...(options.env ? { env: options.env } : {}),
  };
}
