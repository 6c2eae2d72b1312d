import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  digestKey,
  generateApiKey,
  hasValidChecksum,
  KEY_ID_PATTERN,
  newKeyId,
  parseDuration,
} from '../../src/core/access/keys.js';

describe('API key format', () => {
  it('generates pj_ keys of fixed length with a valid checksum, all different', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^pj_[0-9A-Za-z]+$/);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(hasValidChecksum(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(200);
  });

  it('rejects any single-character typo, a truncated key and foreign shapes without a lookup', () => {
    const key = generateApiKey();
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 3, max: key.length - 1 }), fc.constantFrom(...alphabet), (position, replacement) => {
        fc.pre(key[position] !== replacement);
        const typo = key.slice(0, position) + replacement + key.slice(position + 1);
        expect(hasValidChecksum(typo)).toBe(false);
      }),
      { numRuns: 300 },
    );
    expect(hasValidChecksum(key.slice(0, -1))).toBe(false);
    expect(hasValidChecksum(`${key}0`)).toBe(false);
    expect(hasValidChecksum(`sk_${key.slice(3)}`)).toBe(false);
    expect(hasValidChecksum('')).toBe(false);
    expect(hasValidChecksum(`${key.slice(0, 10)}-${key.slice(11)}`)).toBe(false);
  });

  it('digests keys as SHA-256 hex, deterministically', () => {
    const key = generateApiKey();
    expect(digestKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestKey(key)).toBe(digestKey(key));
    expect(digestKey(key)).not.toBe(digestKey(generateApiKey()));
    expect(digestKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes short public key ids', () => {
    const ids = Array.from({ length: 100 }, newKeyId);
    for (const id of ids) expect(id).toMatch(KEY_ID_PATTERN);
    expect(new Set(ids).size).toBe(100);
  });

  it('parses --grace durations', () => {
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('30m')).toBe(30 * 60_000);
    expect(parseDuration('24h')).toBe(24 * 3_600_000);
    expect(parseDuration('7d')).toBe(7 * 86_400_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('12')).toBeUndefined();
    expect(parseDuration('-1h')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
  });
});
