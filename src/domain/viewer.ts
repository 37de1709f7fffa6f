/**
 * The viewer: who is asking, as established from an API key or a connected-app token.
 * Credentials are looked up by the SHA-256 of the presented secret; the plain secret is never stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { CredentialKind, OrganisationDoc, UserDoc } from '../db/documents.js';
import { DomainError } from './errors.js';

export interface Viewer {
  user: UserDoc;
  org: OrganisationDoc;
  /** How the viewer authenticated: connected apps may not include transcripts or summaries in lists. */
  via: CredentialKind;
  /** The key or token used: rate limits count per credential. */
  credentialId: ObjectId;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A new API key: shown to its owner once, stored as `hashSecret(key)`. */
export function newApiKey(): string {
  return `mk_${randomBytes(24).toString('base64url')}`;
}

export interface PresentedCredential {
  kind: CredentialKind;
  secret: string;
}

/** Reads `X-Api-Key` or `Authorization: Bearer`; undefined when neither is sent. */
export function presentedCredential(headers: {
  get(name: string): string | null;
}): PresentedCredential | undefined {
  const apiKey = headers.get('x-api-key');
  if (apiKey) return { kind: 'api_key', secret: apiKey.trim() };
  const authorization = headers.get('authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match)
      throw new DomainError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <token>".');
    return { kind: 'connected_app', secret: match[1]! };
  }
  return undefined;
}

const refused = 'The API key or token is not valid.';

export async function authenticate(
  collections: Collections,
  presented: PresentedCredential,
): Promise<Viewer> {
  const credential = await collections.credentials.findOne({ secretHash: hashSecret(presented.secret) });
  if (!credential || credential.revokedAt !== null || credential.kind !== presented.kind) {
    throw new DomainError('UNAUTHENTICATED', refused);
  }
  const user = await collections.users.findOne({ _id: credential.userId });
  if (user?.status !== 'active') throw new DomainError('UNAUTHENTICATED', refused);
  const org = await collections.organisations.findOne({ _id: user.orgId });
  if (!org) throw new DomainError('UNAUTHENTICATED', refused);
  return { user, org, via: credential.kind, credentialId: credential._id };
}
