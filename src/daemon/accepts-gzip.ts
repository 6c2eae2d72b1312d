import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';

/**
 * Whether a request's Accept-Encoding prefers gzip to the body as it is (q-values, `*`, `identity;q=0`: the
 * negotiation is negotiator's). Clients send the same few values, so verdicts are remembered per value; a
 * value longer than any real client sends is negotiated each time rather than remembered.
 */
const verdicts = new LRUCache<string, boolean>({ max: 256 });
const REMEMBERED_LENGTH = 256;

export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined || header === '') return false;
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value.length > REMEMBERED_LENGTH) return negotiate(value);
  let verdict = verdicts.get(value);
  if (verdict === undefined) {
    verdict = negotiate(value);
    verdicts.set(value, verdict);
  }
  return verdict;
}

function negotiate(value: string): boolean {
  return new Negotiator({ headers: { 'accept-encoding': value } }).encodings(['gzip', 'identity'])[0] === 'gzip';
}
