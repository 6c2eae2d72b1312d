import type { Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { blockedAddressError, createGuardedLookup, isAllowedAddress } from './address-guard.js';

export interface GuardedAgentOptions {
  allowPrivateNetworks: boolean;
  /** Per-phase ceilings for undici (its own defaults are 300 s); the caller's total deadline is tighter. */
  timeoutMs: number;
}

/**
 * An undici Agent with keep-alive whose connector refuses disallowed addresses twice: at DNS lookup
 * (before a packet is sent) and on the connected socket's remote address (literal IPs, rebinding between
 * lookup and connect, anything the lookup did not see).
 */
export function createGuardedAgent(options: GuardedAgentOptions): Agent {
  const connector = buildConnector({
    timeout: options.timeoutMs,
    keepAlive: true,
    lookup: createGuardedLookup(options.allowPrivateNetworks),
  } as buildConnector.BuildOptions);
  return new Agent({
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
    // No socket cap here: the per-origin queue of the scraper pool is the one place concurrency is bounded.
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: guardConnector(connector, options.allowPrivateNetworks),
  });
}

/** Wraps a connector so that a socket connected to a disallowed address is destroyed before any byte is sent. */
export function guardConnector(connect: buildConnector.connector, allowPrivateNetworks: boolean): buildConnector.connector {
  return (connectOptions, callback) => {
    connect(connectOptions, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('connection failed'), null);
        return;
      }
      const address = (socket as Socket).remoteAddress;
      if (!address || !isAllowedAddress(address, allowPrivateNetworks)) {
        socket.destroy();
        callback(blockedAddressError(address ?? connectOptions.hostname), null);
        return;
      }
      callback(null, socket);
    });
  };
}
