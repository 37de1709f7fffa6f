/**
 * Signed links to media files: `<base>/media/<file id>?expires=<unix seconds>&signature=<HMAC>`.
 * Whoever holds one may fetch the file until it expires, as with any pre-signed URL; checking it
 * needs no database (an HMAC-SHA256 of the file id and expiry under a key every process shares).
 * The key is a service key (service-keys.ts): every process signs and checks alike with nothing
 * to configure; removing it and restarting the processes revokes every link made so far.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { serviceKey } from './service-keys.js';

/** How long a link works: the public API's "about 24 h". */
export const LINK_LIFETIME_MS = 24 * 3600 * 1000;

export const MEDIA_PATH = '/media/';

const KEY_ID = 'mediaLinks';

export type LinkCheck = 'valid' | 'forged' | 'expired';

export class MediaLinks {
  constructor(
    private readonly key: Uint8Array,
    /** The service's public base URL, e.g. https://meetings.example.com (known once it listens). */
    private readonly baseUrl: () => string,
  ) {}

  /** The key every process shares: read, or made by the first process to start. */
  static async load(collections: Collections, baseUrl: () => string): Promise<MediaLinks> {
    return new MediaLinks(await serviceKey(collections, KEY_ID), baseUrl);
  }

  /** A link to `fileId` that works until `expiresAt` (whole seconds). */
  linkTo(fileId: ObjectId, expiresAt: Date): string {
    const expires = String(Math.floor(expiresAt.getTime() / 1000));
    const id = fileId.toHexString();
    return `${this.baseUrl()}${MEDIA_PATH}${id}?expires=${expires}&signature=${this.sign(id, expires)}`;
  }

  /** Whether a link's parts are ours and still good. */
  check(fileId: string, expires: string | null, signature: string | null, now = Date.now()): LinkCheck {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return 'forged';
    const expected = Buffer.from(this.sign(fileId, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'forged';
    return Number(expires) * 1000 <= now ? 'expired' : 'valid';
  }

  private sign(fileId: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${fileId}\n${expires}`).digest('base64url');
  }
}
