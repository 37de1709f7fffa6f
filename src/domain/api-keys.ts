/**
 * Self-service API keys: made, listed and revoked by their user, and by the account admins of the
 * user's organisation (an admin offboarding someone revokes theirs).
 *
 * A key (api-key-format.ts) is stored as its SHA-256 (viewer.ts looks keys up by it) with its
 * display prefix, a name, its expiry and its last use (credential-usage.ts); the key itself is
 * returned once, when it is made.
 */
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { CredentialDoc, UserDoc } from '../db/documents.js';
import { newApiKey } from './api-key-format.js';
import { DomainError } from './errors.js';
import { hashSecret, type Viewer } from './viewer.js';

/** Keys one user may hold at once (not revoked): enough for every integration, not for a leak loop. */
export const MAX_KEYS_PER_USER = 100;
const MAX_NAME_LENGTH = 100;

/**
 * Keys are managed with an API key: a connected app (OAuth) acts for its user within limits
 * (docs/api/compatibility.md), and a key it made would outlive its token and lift them.
 */
function requireApiKey(viewer: Viewer): void {
  if (viewer.via !== 'api_key')
    throw new DomainError(
      'FORBIDDEN',
      'API keys are managed with an API key, not with a connected app token.',
    );
}

/** The viewer themself, or an account admin of the user's organisation. */
function mayManage(viewer: Viewer, user: Pick<UserDoc, '_id' | 'orgId'>): boolean {
  if (viewer.user._id.equals(user._id)) return true;
  return viewer.user.settingsAccess.level === 'account_admin' && viewer.user.orgId.equals(user.orgId);
}

export interface NewApiKey {
  name: string;
  expiresAt: Date | null;
}

/** Makes a key for the viewer; the plain key is in the answer and nowhere else. */
export async function createApiKey(
  collections: Collections,
  viewer: Viewer,
  input: NewApiKey,
  now: Date = new Date(),
): Promise<{ key: string; apiKey: CredentialDoc }> {
  requireApiKey(viewer);
  return issueApiKey(collections, viewer.user, input, now);
}

/** Makes a key for a user (the viewer's, or `npm run keys -- create` for an operator). */
export async function issueApiKey(
  collections: Collections,
  user: UserDoc,
  input: NewApiKey,
  now: Date = new Date(),
): Promise<{ key: string; apiKey: CredentialDoc }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > MAX_NAME_LENGTH)
    throw new DomainError('BAD_USER_INPUT', `name must be 1 to ${MAX_NAME_LENGTH} characters.`);
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime())
    throw new DomainError('BAD_USER_INPUT', 'expiresAt must be in the future.');
  if (user.status !== 'active')
    throw new DomainError('BAD_USER_INPUT', `${user.email} is not active: its keys would be refused.`);
  const held = await collections.credentials.countDocuments({
    userId: user._id,
    kind: 'api_key',
    revokedAt: null,
  });
  if (held >= MAX_KEYS_PER_USER)
    throw new DomainError(
      'BAD_USER_INPUT',
      `${user.email} already has ${MAX_KEYS_PER_USER} API keys: revoke one before making another.`,
    );
  const { key, prefix } = newApiKey();
  const secretHash = hashSecret(key);
  const apiKey: CredentialDoc = {
    _id: new ObjectId(),
    kind: 'api_key',
    userId: user._id,
    secretHash,
    prefix,
    label: name,
    appName: null,
    createdAt: now,
    revokedAt: null,
    expiresAt: input.expiresAt,
    lastUsedAt: null,
  };
  await collections.credentials.insertOne(apiKey);
  return { key, apiKey };
}

/** FORBIDDEN unless the viewer may see and revoke the user's keys. */
export function assertMayManage(viewer: Viewer, user: UserDoc): void {
  requireApiKey(viewer);
  if (!mayManage(viewer, user))
    throw new DomainError(
      'FORBIDDEN',
      "Only the user and their organisation's account admins see the user's API keys.",
    );
}

/** The keys (not revoked) of each user, newest first: one query for them all. */
export async function keysOfUsers(
  collections: Collections,
  userIds: readonly ObjectId[],
): Promise<CredentialDoc[][]> {
  const keys = await collections.credentials
    .find({ userId: { $in: [...userIds] }, kind: 'api_key', revokedAt: null })
    .sort({ createdAt: -1, _id: -1 })
    .toArray();
  return userIds.map((id) => keys.filter((k) => k.userId.equals(id)));
}

/**
 * Revokes a key of the viewer's, or (account admins) of a user of their organisation. It is
 * refused everywhere within CREDENTIAL_CACHE_MS. NOT_FOUND for a key the viewer may not manage,
 * as for one that does not exist.
 */
export async function revokeApiKey(
  collections: Collections,
  viewer: Viewer,
  id: string,
  now: Date = new Date(),
): Promise<CredentialDoc> {
  requireApiKey(viewer);
  const notFound = new DomainError('NOT_FOUND', `No API key ${id} of yours or of your organisation.`);
  if (!ObjectId.isValid(id) || id.length !== 24) throw notFound;
  const key = await collections.credentials.findOne({ _id: new ObjectId(id), kind: 'api_key' });
  const owner = key && (await collections.users.findOne({ _id: key.userId }));
  if (!key || !owner || !mayManage(viewer, owner)) throw notFound;
  return revoke(collections, key, now);
}

/** Marks a key revoked (once: revoking it again changes nothing). */
export async function revoke(
  collections: Collections,
  key: CredentialDoc,
  now: Date,
): Promise<CredentialDoc> {
  const revoked = await collections.credentials.findOneAndUpdate(
    { _id: key._id, revokedAt: null },
    { $set: { revokedAt: now } },
    { returnDocument: 'after' },
  );
  return revoked ?? { ...key, revokedAt: key.revokedAt ?? now };
}
