/**
 * Grants: a user's authorization of a connected app (given on the consent page). A user lists the
 * apps they authorized and revokes any of them; an account admin does so for their organisation's
 * users. Revoking a grant stops its access tokens within the credential cache's bound (they are
 * credentials, marked revoked) and deletes its codes and refresh tokens.
 *
 * The authorization server keeps grants as `oauth` records of model `Grant` (src/oauth/storage.ts),
 * with the user's id as `accountId` and the app's client id as `clientId`.
 */
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { AppDoc, OAuthRecordDoc, UserDoc } from '../db/documents.js';
import { DomainError } from './errors.js';
import type { Viewer } from './viewer.js';

export interface AppAuthorization {
  /** The grant's id. */
  id: string;
  userId: ObjectId;
  /** The app; null once it has been deleted (its grants are revoked with it). */
  app: AppDoc | null;
  clientId: string;
  grantedAt: Date;
}

/**
 * Revokes a grant everywhere: its access tokens stop (within the credential cache's bound), its
 * codes, refresh tokens and the grant itself are deleted.
 */
export async function revokeGrant(
  collections: Collections,
  grantId: string,
  now = new Date(),
): Promise<void> {
  await Promise.all([
    revokeAccessTokens(collections, grantId, now),
    collections.oauth.deleteMany({ grantId }),
  ]);
}

/** Marks a grant's access tokens revoked: they are credentials, refused within the cache's bound. */
export async function revokeAccessTokens(
  collections: Collections,
  grantId: string,
  now = new Date(),
): Promise<void> {
  await collections.credentials.updateMany({ grantId, revokedAt: null }, { $set: { revokedAt: now } });
}

/** Revokes every grant of an app (the app is being deleted). */
export async function revokeGrantsOfApp(collections: Collections, clientId: string): Promise<void> {
  const grants = await collections.oauth
    .find({ model: 'Grant', clientId }, { projection: { grantId: 1 } })
    .toArray();
  await Promise.all(grants.map((g) => revokeGrant(collections, g.grantId!)));
}

/** The viewer themself, or an account admin of the user's organisation (as for API keys). */
export function assertMayManageGrants(viewer: Viewer, user: Pick<UserDoc, '_id' | 'orgId'>): void {
  if (viewer.user._id.equals(user._id)) return;
  if (viewer.user.settingsAccess.level === 'account_admin' && viewer.user.orgId.equals(user.orgId)) return;
  throw new DomainError(
    'FORBIDDEN',
    "Only the user and their organisation's account admins see a user's authorized apps.",
  );
}

function authorizationOf(grant: OAuthRecordDoc, apps: Map<string, AppDoc>): AppAuthorization {
  const iat = Number(grant.payload.iat);
  return {
    id: grant.grantId!,
    userId: new ObjectId(grant.accountId),
    app: apps.get(grant.clientId!) ?? null,
    clientId: grant.clientId!,
    grantedAt: new Date(Number.isFinite(iat) ? iat * 1000 : 0),
  };
}

/** The apps a user authorized (their grants), newest first. */
export async function authorizationsOf(
  collections: Collections,
  viewer: Viewer,
  user: Pick<UserDoc, '_id' | 'orgId'>,
): Promise<AppAuthorization[]> {
  assertMayManageGrants(viewer, user);
  const now = new Date();
  const grants = await collections.oauth
    .find({
      model: 'Grant',
      accountId: user._id.toHexString(),
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    })
    .toArray();
  const clientIds = [...new Set(grants.map((g) => g.clientId!))];
  const apps = new Map(
    (await collections.apps.find({ clientId: { $in: clientIds } }).toArray()).map((a) => [a.clientId, a]),
  );
  return grants
    .map((g) => authorizationOf(g, apps))
    .sort((a, b) => b.grantedAt.getTime() - a.grantedAt.getTime());
}

/** Revokes one of a user's grants (the viewer's own, or an account admin's user's). */
export async function revokeAuthorization(
  collections: Collections,
  viewer: Viewer,
  grantId: string,
): Promise<AppAuthorization> {
  const grant = await collections.oauth.findOne({ model: 'Grant', grantId });
  const user = grant?.accountId
    ? await collections.users.findOne({ _id: new ObjectId(grant.accountId) })
    : null;
  const notFound = new DomainError(
    'NOT_FOUND',
    `No authorization ${grantId} of yours or of your organisation's users.`,
  );
  if (!grant || !user) throw notFound;
  try {
    assertMayManageGrants(viewer, user);
  } catch {
    throw notFound; // whether another organisation's grant exists is not told
  }
  const app = await collections.apps.findOne({ clientId: grant.clientId! });
  await revokeGrant(collections, grantId);
  return authorizationOf(grant, new Map(app ? [[app.clientId, app]] : []));
}
