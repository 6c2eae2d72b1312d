import { PagejsonError } from '../../shared/index.js';
import { proxyLabel, proxyUrlProblem, resolveSecrets, type ProxyList, type ProxySettings } from '../../config/index.js';
import { environmentProxyFor } from './proxy-env.js';

/**
 * Which proxy a fetch goes through (docs/access.md, "Proxies"), on the models of Crawl4AI's proxy rotation
 * and Crawlee's ProxyConfiguration: an ordered list, taken in turn (`round-robin`) or kept per endpoint
 * (`sticky`: the same exit for an endpoint's fetches and its login session, until that proxy fails). A proxy
 * that fails is skipped for a while (30 s, doubling while it keeps failing, at most 10 minutes): fetches try
 * the healthy ones first and the skipped ones last, so one dead proxy costs one failed attempt, not one per
 * fetch, and a list whose every proxy is skipped is still tried rather than refused.
 *
 * Precedence: the config's `proxy`, then `fetch.proxy` of pagejson.json, then the environment
 * (HTTPS_PROXY/HTTP_PROXY/NO_PROXY); `false` at either level means direct.
 */

export const FIRST_SKIP_MS = 30_000;
export const MAX_SKIP_MS = 10 * 60_000;
/** Proxies and sticky endpoints remembered: bounded like every map a long-running daemon keeps. */
const MAX_REMEMBERED = 1_000;

type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyCandidate {
  /** The resolved URL, credentials included: for the proxy client only, never printed. */
  readonly url: URL;
  /** How errors and logs name it: scheme, host and port of what was written, never credentials. */
  readonly label: string;
  /** Its identity across fetches: where it is written and the text (templates unresolved). */
  readonly key: string;
  /** The list it comes from, when its rotation is sticky (the endpoint keeps it while it works). */
  readonly stickyList?: string;
}

export interface ProxyChoice {
  /** The endpoint (apiId) the fetch is for; sticky rotation keeps a proxy per endpoint. */
  endpoint?: string | undefined;
  /** The config's `proxy`; undefined: pagejson.json's, then the environment's. */
  proxy?: ProxySettings | undefined;
}

export interface ProxyChooser {
  /** The proxies to try for one fetch of `target`, best first; empty: go direct. Unset secrets throw. */
  candidates(target: URL, choice: ProxyChoice): ProxyCandidate[];
  /** The proxy an endpoint's next fetch of `target` would try first (a login keeps to it), or undefined. */
  proxyFor(endpoint: string, proxy: ProxySettings | undefined, target: URL): ProxyCandidate | undefined;
  failed(candidate: ProxyCandidate, endpoint?: string): void;
  succeeded(candidate: ProxyCandidate, endpoint?: string): void;
  /** Until when a proxy is skipped (epoch ms), if it is. */
  skippedUntil(candidate: ProxyCandidate): number | undefined;
}

interface Health {
  until: number;
  failures: number;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

function candidateOf(text: string, env: Env, where: string): ProxyCandidate {
  const resolved = resolveSecrets(text, env, where);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(resolved) ? resolved : `http://${resolved}`;
  const problem = proxyUrlProblem(withScheme);
  let url: URL | undefined;
  try {
    url = problem ? undefined : new URL(withScheme);
  } catch {
    url = undefined;
  }
  // The label is of the text as written: a resolved host or credential never reaches a message.
  const label = proxyLabel(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  if (!url) {
    throw new PagejsonError('FETCH_FAILED', `the proxy ${label} (${where}) is not a usable proxy URL${problem ? `: ${problem}` : ''}`, {
      context: { proxy: label, where },
      hint: 'write it as http://[user:password@]host:port; with ${NAME}, check what the variable holds',
    });
  }
  return { url, label, key: `${where}\u0000${text}` };
}

export function createProxyChooser(options: { project?: ProxySettings | undefined; env: Env; now?: () => number }): ProxyChooser {
  const now = options.now ?? Date.now;
  const health = new Map<string, Health>();
  const turns = new Map<string, number>();
  const sticky = new Map<string, string>();

  const skippedUntil = (candidate: ProxyCandidate): number | undefined => {
    const until = health.get(candidate.key)?.until;
    return until !== undefined && until > now() ? until : undefined;
  };

  function listCandidates(list: ProxyList, where: string): ProxyCandidate[] {
    const all = list.urls.map((text, index) => candidateOf(text, options.env, `${where}.urls[${index}]`));
    if (list.rotate !== 'sticky') return all;
    const stickyList = all.map((c) => c.key).join('\u0001');
    return all.map((c) => ({ ...c, stickyList }));
  }

  /** Rotation order for this fetch: round-robin advances a turn per fetch; sticky starts at the endpoint's. */
  function rotate(list: ProxyList, all: ProxyCandidate[], endpoint: string | undefined): ProxyCandidate[] {
    const listKey = all.map((c) => c.key).join('\u0001');
    let start: number;
    const kept = list.rotate === 'sticky' && endpoint !== undefined ? sticky.get(`${endpoint}\u0001${listKey}`) : undefined;
    const keptIndex = kept === undefined ? -1 : all.findIndex((c) => c.key === kept);
    if (keptIndex >= 0) start = keptIndex;
    else {
      start = turns.get(listKey) ?? 0;
      remember(turns, listKey, (start + 1) % all.length);
    }
    const ordered = [...all.slice(start), ...all.slice(0, start)];
    const healthy = ordered.filter((c) => skippedUntil(c) === undefined);
    const skipped = ordered.filter((c) => skippedUntil(c) !== undefined).sort((a, b) => (skippedUntil(a) ?? 0) - (skippedUntil(b) ?? 0));
    return [...healthy, ...skipped];
  }

  function settingsFor(choice: ProxyChoice): { list: ProxyList; where: string } | false | undefined {
    if (choice.proxy === false) return false;
    if (choice.proxy) return { list: choice.proxy, where: 'proxy' };
    if (options.project === false) return false;
    if (options.project) return { list: options.project, where: 'fetch.proxy' };
    return undefined;
  }

  function candidates(target: URL, choice: ProxyChoice): ProxyCandidate[] {
    const settings = settingsFor(choice);
    if (settings === false) return [];
    if (settings === undefined) {
      const fromEnv = environmentProxyFor(target, options.env);
      return fromEnv ? [candidateOf(fromEnv, {}, 'the environment (HTTPS_PROXY/HTTP_PROXY)')] : [];
    }
    return rotate(settings.list, listCandidates(settings.list, settings.where), choice.endpoint);
  }

  return {
    candidates,
    proxyFor: (endpoint, proxy, target) => candidates(target, { endpoint, proxy })[0],
    failed(candidate, endpoint) {
      const failures = (health.get(candidate.key)?.failures ?? 0) + 1;
      remember(health, candidate.key, { failures, until: now() + Math.min(MAX_SKIP_MS, FIRST_SKIP_MS * 2 ** (failures - 1)) });
      // A sticky endpoint leaves a failing proxy: its next fetch starts at the next healthy one.
      if (endpoint === undefined || candidate.stickyList === undefined) return;
      const key = `${endpoint}\u0001${candidate.stickyList}`;
      if (sticky.get(key) === candidate.key) sticky.delete(key);
    },
    succeeded(candidate, endpoint) {
      health.delete(candidate.key);
      if (endpoint !== undefined && candidate.stickyList !== undefined)
        remember(sticky, `${endpoint}\u0001${candidate.stickyList}`, candidate.key);
    },
    skippedUntil,
  };
}
