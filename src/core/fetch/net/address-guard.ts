import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { PagejsonError } from '../../shared/index.js';

/**
 * Server-side request forgery guard. A config's host is trusted only as far as it resolves to a public
 * unicast address: loopback, private, link-local (169.254.169.254, the cloud metadata service), CGNAT,
 * multicast, unspecified and reserved ranges are refused. The check runs on the addresses DNS returns and
 * again on the connected socket, so redirects and DNS rebinding cannot slip past it.
 *
 * `allowPrivateNetworks` opens loopback, private (RFC 1918, IPv6 unique local) and CGNAT ranges, for tests,
 * the demo and intranet sources. Link-local, multicast, unspecified and reserved addresses stay refused:
 * no page worth scraping lives there, and 169.254.169.254 is the credential store of every cloud VM.
 */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal']);

function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return undefined;
  const parsed = ipaddr.parse(bare);
  // `::ffff:127.0.0.1` is loopback in disguise: judge the IPv4 address inside.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

export function isPublicAddress(address: string): boolean {
  return parse(address)?.range() === 'unicast';
}

export function isAllowedAddress(address: string, allowPrivateNetworks: boolean): boolean {
  const range = parse(address)?.range();
  if (range === undefined) return false;
  return range === 'unicast' || (allowPrivateNetworks && PRIVATE_RANGES.has(range));
}

export function blockedAddressError(address: string): PagejsonError {
  const opensWithSetting = PRIVATE_RANGES.has(parse(address)?.range() ?? '');
  return new PagejsonError('FETCH_BLOCKED_ADDRESS', `address ${address} is not public`, {
    context: { address },
    ...(opensWithSetting ? { hint: 'set fetch.allowPrivateNetworks to true in pagejson.json to fetch from private networks' } : {}),
  });
}

/**
 * Throws when a URL's host is a literal IP that is not allowed. Runs before every request and redirect hop,
 * so a refused address never sees a packet; hostnames are checked by the lookup and the connected socket.
 */
export function assertAllowedUrlHost(url: string | URL, allowPrivateNetworks: boolean): void {
  const hostname = (typeof url === 'string' ? new URL(url) : url).hostname;
  const parsed = parse(hostname);
  if (parsed && !isAllowedAddress(parsed.toString(), allowPrivateNetworks)) throw blockedAddressError(parsed.toString());
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A drop-in `lookup` for `net.connect` that refuses a hostname when any address it resolves to is not
 * allowed (a name mixing public and private answers is a rebinding attempt, not a misconfiguration).
 */
export function createGuardedLookup(allowPrivateNetworks: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, options.all ? [] : '', undefined);
        return;
      }
      const blocked = addresses.find((entry) => !isAllowedAddress(entry.address, allowPrivateNetworks));
      if (blocked) {
        callback(blockedAddressError(blocked.address) as unknown as NodeJS.ErrnoException, options.all ? [] : '', undefined);
        return;
      }
      const first = addresses[0];
      if (options.all) callback(null, addresses);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', undefined);
    });
  };
}
