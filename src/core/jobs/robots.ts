import robotsModule from 'robots-parser';
import { request } from 'undici';
import { createGuardedAgent } from '../fetch/index.js';

/**
 * robots.txt for job traffic (docs/jobs.md, "Polite by default"), read as RFC 9309 says: a robots.txt that
 * answers 4xx (or redirects too often) allows everything; one that answers 5xx or cannot be reached disallows
 * everything until it is read again; its first 512 KiB are parsed. Rules are kept per origin for `ttlMs` (a
 * failure for a minute), so a job asks each origin's robots.txt about once an hour. Job items go by the rules
 * for the product token `pagejson`, else `*`.
 */
export const ROBOTS_USER_AGENT = 'pagejson';

interface ParsedRobots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
}
// The package is CommonJS whose types say `export default`: under NodeNext the import is the function itself.
const robotsParser = ((robotsModule as unknown as { default?: unknown }).default ?? robotsModule) as (
  url: string,
  text: string,
) => ParsedRobots;
const MAX_ROBOTS_BYTES = 512 * 1024;
const MAX_REDIRECTS = 5;
const FAILURE_TTL_MS = 60_000;
const MAX_ORIGINS = 1_000;

/** What a robots.txt fetch gave: its status and text (empty unless 2xx). Throws when it could not be fetched. */
export type RobotsFetcher = (robotsUrl: string) => Promise<{ status: number; text: string }>;

export interface RobotsRules {
  /** Why job traffic may not fetch `url`, or undefined when it may. */
  refusal(url: string): Promise<string | undefined>;
}

type Verdict = { allowAll: true } | { disallowAll: string } | { parsed: ParsedRobots };

interface Kept {
  verdict: Promise<Verdict>;
  until: number;
}

async function verdictOf(fetchRobots: RobotsFetcher, robotsUrl: string): Promise<Verdict> {
  try {
    const { status, text } = await fetchRobots(robotsUrl);
    if (status >= 200 && status < 300) return { parsed: robotsParser(robotsUrl, text) };
    if (status >= 500) return { disallowAll: `${robotsUrl} answered ${status}, so it is read as disallowing everything (RFC 9309)` };
    return { allowAll: true };
  } catch (error) {
    return {
      disallowAll: `${robotsUrl} could not be read (${(error as Error).message.slice(0, 200)}), so it disallows everything for now`,
    };
  }
}

export function createRobotsRules(options: { fetchRobots: RobotsFetcher; now?: () => number; ttlMs?: number }): RobotsRules {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 3_600_000;
  const kept = new Map<string, Kept>();

  const rulesOf = (origin: string): Promise<Verdict> => {
    const known = kept.get(origin);
    if (known && known.until > now()) return known.verdict;
    kept.delete(origin);
    if (kept.size >= MAX_ORIGINS) kept.delete(kept.keys().next().value!);
    const entry: Kept = { verdict: verdictOf(options.fetchRobots, `${origin}/robots.txt`), until: now() + ttlMs };
    kept.set(origin, entry);
    void entry.verdict.then((verdict) => {
      if ('disallowAll' in verdict) entry.until = Math.min(entry.until, now() + FAILURE_TTL_MS);
    });
    return entry.verdict;
  };

  return {
    async refusal(url) {
      let origin: string;
      try {
        origin = new URL(url).origin;
      } catch {
        return undefined;
      }
      const verdict = await rulesOf(origin);
      if ('allowAll' in verdict) return undefined;
      if ('disallowAll' in verdict) return verdict.disallowAll;
      // Undefined: the URL is not under this robots.txt (it cannot be, by its origin), so nothing forbids it.
      if (verdict.parsed.isAllowed(url, ROBOTS_USER_AGENT) === false)
        return `${origin}/robots.txt disallows ${url.slice(0, 300)} for ${ROBOTS_USER_AGENT}`;
      return undefined;
    },
  };
}

/** The first `maxBytes` of a body as text; the rest is not read (a longer robots.txt is cut, as RFC 9309 allows). */
async function firstBytes(body: AsyncIterable<Uint8Array> & { destroy(): unknown }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    total += chunk.byteLength;
    if (total >= maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** Fetches robots.txt through the address guard, within `timeoutMs`, following at most five redirects. */
export function createRobotsFetcher(options: { allowPrivateNetworks: boolean; timeoutMs: number }): RobotsFetcher {
  const agent = createGuardedAgent({ allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: options.timeoutMs });
  return async (robotsUrl) => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    let url = robotsUrl;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const answer = await request(url, { dispatcher: agent, signal, headers: { 'user-agent': ROBOTS_USER_AGENT } });
      const location = answer.headers.location;
      if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
        await answer.body.dump();
        url = new URL(location, url).href;
        if (!/^https?:/i.test(url)) return { status: 404, text: '' };
        continue;
      }
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        await answer.body.dump();
        return { status: answer.statusCode, text: '' };
      }
      return { status: answer.statusCode, text: await firstBytes(answer.body, MAX_ROBOTS_BYTES) };
    }
    // Too many redirects: RFC 9309 reads that as unavailable, which allows everything.
    return { status: 404, text: '' };
  };
}
