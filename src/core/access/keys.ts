import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * API key format (docs/wire.md): `pj_` + 30 random bytes in base62 (fixed width) + a 6-character
 * checksum. The checksum lets the daemon answer `invalid key` to a typo without touching the store, and lets
 * secret scanners tell a real key from lookalike text. Keys are stored only as SHA-256 digests.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'pj_';
const RANDOM_BYTES = 30;
/** ceil(240 bits / log2(62)): every 30-byte value fits, so every key has the same length. */
const BODY_LENGTH = 41;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
export const API_KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
export const KEY_ID_PATTERN = /^k_[0-9A-Za-z]{8}$/;

function toBase62(bytes: Uint8Array, width: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = '';
  while (value > 0n) {
    text = ALPHABET[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text.padStart(width, '0');
}

/** First 4 bytes of SHA-256 of the prefix and body: a 32-bit number always fits 6 base62 characters. */
function checksumOf(prefixAndBody: string): string {
  const digest = createHash('sha256').update(prefixAndBody).digest();
  return toBase62(digest.subarray(0, 4), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  const prefixAndBody = KEY_PREFIX + toBase62(randomBytes(RANDOM_BYTES), BODY_LENGTH);
  return prefixAndBody + checksumOf(prefixAndBody);
}

/** Shape and checksum only: true says "could be one of ours", not "is a known key". */
export function hasValidChecksum(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !KEY_PATTERN.test(key)) return false;
  const expected = Buffer.from(checksumOf(key.slice(0, -CHECKSUM_LENGTH)));
  return timingSafeEqual(expected, Buffer.from(key.slice(-CHECKSUM_LENGTH)));
}

/** What the store keeps instead of the key. Lookups are by digest, so no key comparison is timing-sensitive. */
export function digestKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Short public id shown in lists and usage, e.g. `k_3f9aC1bZ`. */
export function newKeyId(): string {
  let id = 'k_';
  for (let i = 0; i < 8; i++) id += ALPHABET[randomInt(62)];
  return id;
}

/** `--grace` values: `0`, `30s`, `30m`, `24h`, `7d`. Returns milliseconds, or undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = match[2];
  if (unit === undefined) return amount === 0 ? 0 : undefined;
  const factor = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 'ms' | 's' | 'm' | 'h' | 'd'];
  return Math.round(amount * factor);
}
