import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { createGuardedAgent, readBodyWithLimit } from '../fetch/index.js';
import { PagejsonError } from '../shared/index.js';
import type { TextFetcher } from './sitemap.js';

/**
 * Sitemaps' bytes for a job's `sitemap` source: through the address guard the scrapers use, within the fetch
 * timeout, at most `maxBytes` (a sitemap is at most 50 MB unpacked by its own rules), gzip unpacked within the
 * same bound.
 */
export function createSitemapFetcher(options: { allowPrivateNetworks: boolean; timeoutMs: number; maxBytes: number }): TextFetcher {
  const agent = createGuardedAgent({ allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: options.timeoutMs });
  return async (url) => {
    if (!/^https?:\/\//i.test(url)) throw new PagejsonError('USAGE', `the sitemap ${url.slice(0, 200)} is not an http(s) URL`);
    let body: Buffer;
    try {
      const answer = await request(url, {
        dispatcher: agent,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      } as Parameters<typeof request>[1]);
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        throw new PagejsonError('FETCH_STATUS', `the sitemap ${url.slice(0, 200)} answered ${answer.statusCode}`);
      }
      body = await readBodyWithLimit(answer.body, options.maxBytes);
    } catch (error) {
      if (error instanceof PagejsonError) throw error;
      throw new PagejsonError('FETCH_FAILED', `the sitemap ${url.slice(0, 200)} could not be fetched: ${(error as Error).message}`);
    }
    // gzip by its magic bytes: servers send .xml.gz as application/octet-stream, or gzip without saying so.
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        body = gunzipSync(body, { maxOutputLength: options.maxBytes });
      } catch {
        throw new PagejsonError(
          'FETCH_TOO_LARGE',
          `the sitemap ${url.slice(0, 200)} is not gzip, or unpacks to more than ${options.maxBytes} bytes`,
        );
      }
    }
    return body.toString('utf8');
  };
}
