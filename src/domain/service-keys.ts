/**
 * Keys every process of the service shares, made by the first process to start and kept in the
 * database (`serviceKeys`), so that there is nothing to configure: media links are signed with one
 * (media-links.ts), the authorization server's cookies and tokens with others (src/oauth).
 * Removing a key's document and restarting the processes replaces it, invalidating what it signed.
 */
import { randomBytes } from 'node:crypto';
import { Binary } from 'mongodb';
import type { Collections } from '../db/collections.js';

/** The key named `id`: read, or made with `make` (32 random bytes by default) when there is none yet. */
export async function serviceKey(
  collections: Collections,
  id: string,
  make: () => Uint8Array = () => randomBytes(32),
): Promise<Uint8Array> {
  const doc = await collections.serviceKeys.findOneAndUpdate(
    { _id: id },
    { $setOnInsert: { secret: new Binary(make()), createdAt: new Date() } },
    { upsert: true, returnDocument: 'after' },
  );
  return doc!.secret.buffer;
}
