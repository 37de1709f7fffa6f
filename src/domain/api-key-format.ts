/**
 * The shape of an API key: `mgk_` + 32 random base62 characters + a 6-character checksum (CRC-32
 * of the random part, in base62), 42 characters in all. A secret scanner recognises a leaked key by
 * its shape and checks it offline, as GitHub's tokens are made; the service refuses a key whose
 * checksum does not add up without a database lookup. Listings show its prefix (`mgk_` and the
 * first 8 random characters). Keys made before this format (the demo keys, seeded datasets) have
 * other shapes and keep working.
 */
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'mgk_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 8;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function checksumOf(random: string): string {
  let n = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** `length` random base62 characters (keys, download ids). */
export function randomBase62(length: number): string {
  let random = '';
  for (let i = 0; i < length; i++) random += BASE62[randomInt(62)];
  return random;
}

/** A new key (shown once, stored hashed) and its display prefix. */
export function newApiKey(): { key: string; prefix: string } {
  const random = randomBase62(RANDOM_LENGTH);
  const key = `${API_KEY_PREFIX}${random}${checksumOf(random)}`;
  return { key, prefix: key.slice(0, DISPLAY_LENGTH) };
}

/**
 * False for a secret that has our keys' prefix but not their shape or checksum (a typo, a
 * truncated paste, a guess): it cannot be a key, whatever the database holds.
 */
export function mayBeApiKey(secret: string): boolean {
  if (!secret.startsWith(API_KEY_PREFIX)) return true; // an older key: only a lookup can tell
  const body = secret.slice(API_KEY_PREFIX.length);
  if (body.length !== RANDOM_LENGTH + CHECKSUM_LENGTH || !/^[0-9A-Za-z]+$/.test(body)) return false;
  return checksumOf(body.slice(0, RANDOM_LENGTH)) === body.slice(RANDOM_LENGTH);
}
