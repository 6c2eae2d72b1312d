import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import type { ProxyCandidate, ProxyChooser } from './proxy-rotation.js';

/**
 * One fetch over a list of proxies: each is tried in the chooser's order until one gets an answer from the
 * source; a proxy that fails (cannot be reached, refuses the credentials, cannot open the tunnel) is
 * reported to the chooser, which skips it for a while, and the next one is tried. Any other failure (the
 * source's 404, a page too large, the deadline) is the source's and ends the fetch as it is. When every proxy
 * failed, the error names each one without its credentials, with its reason (docs/access.md).
 */

const PROXY_FAILURE = 'proxyFailure';

/** A failure of the proxy itself: the scrapers throw it, the runner moves on to the next proxy. */
export function proxyFailure(candidate: ProxyCandidate, reason: string): PagejsonError {
  return new PagejsonError('FETCH_FAILED', `the proxy ${candidate.label} failed: ${reason}`, {
    context: { proxy: candidate.label, reason, [PROXY_FAILURE]: true },
    hint: "check the proxy's address and credentials (proxy in the config, fetch.proxy in pagejson.json, or HTTPS_PROXY); a failing proxy is skipped for a while",
  });
}

export function isProxyFailure(error: unknown): error is PagejsonError {
  return isPagejsonError(error) && error.context[PROXY_FAILURE] === true;
}

/** What a proxy's CONNECT or absolute-form answer means, in words (407: its credentials). */
export function proxyStatusReason(status: number): string {
  if (status === 407) return 'it refused the credentials (407 Proxy Authentication Required)';
  return `it answered ${status} instead of opening the connection`;
}

/** Failing to reach the proxy itself: the connection to it is the first thing a proxied request opens. */
const CONNECT_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** Anything else that breaks a connection through a proxy (a reset, a TLS failure) may be the page's too. */
const OTHER_REASONS: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate does not match its name',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate is signed by an untrusted authority',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its TLS certificate cannot be verified',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
};

/**
 * Errors of the connection to a proxy itself, marked where that connection is opened (proxy-dispatchers.ts):
 * an `https://` proxy's TLS failure has the same code as the page's behind a tunnel, so the code cannot tell.
 */
const proxyLegErrors = new WeakSet<object>();

export function markProxyLeg(error: unknown): void {
  if (error !== null && typeof error === 'object') proxyLegErrors.add(error);
}

/** A failure on the connection to the proxy, in words from its code (never the message: it may quote the URL). */
function proxyLegReason(chain: ReadonlyArray<{ code: string | undefined }>): string {
  for (const { code } of chain)
    if (code && (CONNECT_REASONS[code] ?? OTHER_REASONS[code])) return (CONNECT_REASONS[code] ?? OTHER_REASONS[code])!;
  const code = chain.find((link) => link.code && link.code !== 'UND_ERR_PRX_TLS')?.code;
  return code ? `the TLS connection to it failed (${code})` : 'the TLS connection to it failed';
}

function codesOf(error: unknown): Array<{ code: string | undefined; message: string; proxyLeg: boolean }> {
  const chain: Array<{ code: string | undefined; message: string; proxyLeg: boolean }> = [];
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    chain.push({
      code: typeof code === 'string' ? code : undefined,
      message: current instanceof Error ? current.message : '',
      proxyLeg: typeof current === 'object' && proxyLegErrors.has(current),
    });
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/**
 * Why a request failed at the proxy, if it did: the proxy could not be reached, or answered its CONNECT or
 * absolute-form request with a refusal (407 for credentials). Undefined for anything that may be the page's
 * (a reset, a TLS failure at the page's end of a tunnel). Built from codes and statuses only: the messages of
 * proxy clients can quote the proxy URL, credentials included, so they are never passed on.
 */
export function proxyLevelReason(error: unknown): string | undefined {
  const chain = codesOf(error);
  // undici's own mark of a TLS failure with the proxy (a name mismatch), or ours (proxy-dispatchers.ts).
  if (chain.some((link) => link.proxyLeg || link.code === 'UND_ERR_PRX_TLS')) return proxyLegReason(chain);
  for (const { code, message } of chain) {
    if (code && CONNECT_REASONS[code]) return CONNECT_REASONS[code];
    // undici's tunnel ("Proxy response (407) !== 200"), its absolute-form wrapper ("Proxy Authentication
    // Required (407)") and got-scraping's ("The proxy responded with 407 …").
    const status = /Proxy response \((\d{3})\)|proxy responded with (\d{3})|Proxy Authentication Required \((\d{3})\)/i.exec(message);
    if (status) return proxyStatusReason(Number(status[1] ?? status[2] ?? status[3]));
  }
  return undefined;
}

/** A reason fit to print for any error met while talking to a proxy (the guard proxy's upstream side). */
export function proxyErrorReason(error: unknown): string {
  const level = proxyLevelReason(error);
  if (level) return level;
  for (const { code } of codesOf(error)) if (code && OTHER_REASONS[code]) return OTHER_REASONS[code];
  return 'the connection through it failed';
}

function allFailedError(failures: PagejsonError[]): PagejsonError {
  const named = failures.map((failure) => `${String(failure.context.proxy)} (${String(failure.context.reason)})`);
  const message = failures.length === 1 ? (failures[0]?.message ?? 'the proxy failed') : `every proxy failed: ${named.join('; ')}`;
  return new PagejsonError('FETCH_FAILED', message, {
    context: { proxies: failures.map((failure) => failure.context.proxy) },
    hint: "check the proxies' addresses and credentials (proxy in the config, fetch.proxy in pagejson.json, or HTTPS_PROXY); each is skipped for a while after failing, then tried again",
  });
}

const SOURCE_ANSWERS: ReadonlySet<string> = new Set(['FETCH_STATUS', 'FETCH_NOT_HTML', 'FETCH_TOO_LARGE', 'FETCH_TOO_MANY_REDIRECTS']);

/**
 * Runs `attempt` through each candidate in turn (once, directly, when there are none). `stopped` ends the
 * round early (deadline, caller): the last error is then the answer.
 */
export async function throughProxies<T>(
  candidates: readonly ProxyCandidate[],
  chooser: ProxyChooser,
  endpoint: string | undefined,
  stopped: AbortSignal,
  attempt: (candidate: ProxyCandidate | undefined) => Promise<T>,
): Promise<T> {
  if (candidates.length === 0) return attempt(undefined);
  const failures: PagejsonError[] = [];
  for (const candidate of candidates) {
    try {
      const result = await attempt(candidate);
      chooser.succeeded(candidate, endpoint);
      return result;
    } catch (error) {
      if (!isProxyFailure(error)) {
        // The source answered through it (a 404, a page too large): the proxy works.
        if (isPagejsonError(error) && SOURCE_ANSWERS.has(error.code)) chooser.succeeded(candidate, endpoint);
        throw error;
      }
      chooser.failed(candidate, endpoint);
      failures.push(error);
      if (stopped.aborted) break;
    }
  }
  throw allFailedError(failures);
}
