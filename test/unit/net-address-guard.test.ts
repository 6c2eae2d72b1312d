import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildConnector } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { assertAllowedUrlHost, createGuardedLookup, isAllowedAddress, isPublicAddress } from '../../src/core/fetch/net/address-guard.js';
import { guardConnector } from '../../src/core/fetch/net/guarded-agent.js';

const NOT_PUBLIC = [
  '127.0.0.1',
  '127.8.9.10',
  '::1',
  '::ffff:127.0.0.1',
  '10.0.0.1',
  '172.16.5.4',
  '192.168.1.1',
  '169.254.169.254',
  'fe80::1',
  'fc00::1',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '::',
  '224.0.0.1',
  'ff02::1',
  '255.255.255.255',
  '240.0.0.1',
  '::ffff:169.254.169.254',
  'not-an-address',
];
const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

describe('address guard', () => {
  it.each(NOT_PUBLIC)('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each(PUBLIC)('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(isAllowedAddress(address, false)).toBe(true);
  });

  it('opens loopback, private and CGNAT ranges with allowPrivateNetworks, but never link-local or multicast', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', '192.168.0.10', '100.64.0.1', 'fd12::1']) {
      expect(isAllowedAddress(address, true)).toBe(true);
    }
    for (const address of ['169.254.169.254', 'fe80::1', '0.0.0.0', '224.0.0.1', '255.255.255.255']) {
      expect(isAllowedAddress(address, true)).toBe(false);
    }
  });

  it('checks literal hosts of URLs, bracketed IPv6 and mapped IPv4 included', () => {
    const blocked = (url: string) => {
      try {
        assertAllowedUrlHost(url, false);
        return undefined;
      } catch (error) {
        return error as PagejsonError;
      }
    };
    expect(blocked('http://169.254.169.254/latest/meta-data/')?.message).toBe('address 169.254.169.254 is not public');
    expect(blocked('http://[::ffff:127.0.0.1]:8080/')?.code).toBe('FETCH_BLOCKED_ADDRESS');
    expect(blocked('http://[::1]/')?.code).toBe('FETCH_BLOCKED_ADDRESS');
    // WHATWG URL parsing turns these spellings into 127.0.0.1 before the guard sees them.
    expect(blocked('http://2130706433/')?.code).toBe('FETCH_BLOCKED_ADDRESS');
    expect(blocked('http://0x7f.1/')?.code).toBe('FETCH_BLOCKED_ADDRESS');
    expect(blocked('http://8.8.8.8/')).toBeUndefined();
    // Hostnames are judged at lookup and connect time, not here.
    expect(blocked('http://example.com/')).toBeUndefined();
  });

  it('names the setting that opens a private address, and only for those', () => {
    try {
      assertAllowedUrlHost('http://10.0.0.1/', false);
    } catch (error) {
      expect((error as PagejsonError).hint).toContain('allowPrivateNetworks');
    }
    try {
      assertAllowedUrlHost('http://169.254.169.254/', true);
    } catch (error) {
      expect((error as PagejsonError).hint).toBeUndefined();
    }
    expect.assertions(2);
  });

  it('refuses a hostname whose DNS answer is not public', async () => {
    const lookup = createGuardedLookup(false);
    const error = await new Promise<unknown>((resolve) => lookup('localhost', { all: true }, (e) => resolve(e)));
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).code).toBe('FETCH_BLOCKED_ADDRESS');
    const allowed = await new Promise<unknown>((resolve) =>
      createGuardedLookup(true)('localhost', {}, (e, address) => resolve(e ?? address)),
    );
    expect(allowed).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe('guarded connector', () => {
  let server: Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests += 1;
      res.end('hi');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('destroys a socket that connected to a refused address, whatever the lookup said', async () => {
    // An unguarded inner connector stands for a lookup that was fooled (DNS rebinding).
    const connect = guardConnector(buildConnector({}), false);
    const outcome = await new Promise<{ error: Error | null; socket: unknown }>((resolve) =>
      connect({ hostname: '127.0.0.1', protocol: 'http:', port: String(port) }, (error, socket) => resolve({ error, socket })),
    );
    expect(outcome.socket).toBeNull();
    expect(outcome.error).toBeInstanceOf(PagejsonError);
    expect((outcome.error as PagejsonError).message).toBe('address 127.0.0.1 is not public');
    expect(requests).toBe(0);
  });

  it('hands the socket over when the address is allowed', async () => {
    const connect = guardConnector(buildConnector({}), true);
    const outcome = await new Promise<{ error: Error | null; socket: { destroy(): void } | null }>((resolve) =>
      connect({ hostname: '127.0.0.1', protocol: 'http:', port: String(port) }, (error, socket) => resolve({ error, socket })),
    );
    expect(outcome.error).toBeNull();
    expect(outcome.socket).not.toBeNull();
    outcome.socket?.destroy();
  });
});
