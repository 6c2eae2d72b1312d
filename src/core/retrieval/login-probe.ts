import type { Extractor } from '../extract/index.js';
import type { FetchResult, LoggedInProbe } from '../fetch/index.js';

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
