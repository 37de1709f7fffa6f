/**
 * The viewer: who is asking, as established from an API key or a connected-app token; and the
 * credentials themselves: every kind a request may present (API key, connected-app token, the
 * ingestion service's token) is recognised here. Credentials are looked up by the SHA-256 of the
 * presented secret; the plain secret is never stored.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { CredentialKind, OrganisationDoc, UserDoc } from '../db/documents.js';
import { mayBeApiKey } from './api-key-format.js';
import { DomainError } from './errors.js';

export interface Viewer {
  user: UserDoc;
  org: OrganisationDoc;
  /** How the viewer authenticated: connected apps may not include transcripts or summaries in lists. */
  via: CredentialKind;
  /** The key or token used: rate limits count per credential. */
  credentialId: ObjectId;
  /** A connected app's token issued for the MCP door (RFC 8707): it opens that door only. */
  audience?: 'mcp';
}

/** The doors a credential may open: REST and GraphQL (`api`), or MCP. */
export type DoorName = 'api' | 'mcp';

/**
 * Whether the viewer's credential opens `door`: an API key opens every door; a connected app's
 * token only the one it was issued for, so a token an agent holds cannot be replayed on the REST
 * door, nor the reverse.
 */
export function opensDoor(viewer: Viewer, door: DoorName): boolean {
  return viewer.via !== 'connected_app' || (viewer.audience === 'mcp') === (door === 'mcp');
}

export const wrongDoorMessage = (door: DoorName): string =>
  door === 'mcp'
    ? 'This token was issued for the REST and GraphQL doors: an MCP client asks for one with resource=<the service URL>/mcp (RFC 8707).'
    : 'This token was issued for the MCP door (/mcp): ask for one without a resource parameter for the REST and GraphQL doors.';

/** The one way a secret is stored and looked up: hex SHA-256 (keys, tokens, the service token). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A credential as a request presents it: `X-Api-Key`, or a bearer token (a connected app's, or the service's). */
export interface PresentedCredential {
  kind: 'api_key' | 'bearer';
  secret: string;
}

/** The token of an `Authorization: Bearer <token>` header; UNAUTHENTICATED for any other scheme or shape. */
export function bearerToken(authorization: string): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match)
    throw new DomainError(
      'UNAUTHENTICATED',
      'The Authorization header must be "Bearer <token>" (a connected app\'s token); send an API key as X-Api-Key instead.',
    );
  return match[1]!;
}

/** Reads `X-Api-Key` or `Authorization: Bearer`; undefined when neither is sent. */
export function presentedCredential(headers: {
  get(name: string): string | null;
}): PresentedCredential | undefined {
  const apiKey = headers.get('x-api-key');
  if (apiKey) return { kind: 'api_key', secret: apiKey.trim() };
  const authorization = headers.get('authorization');
  if (authorization) return { kind: 'bearer', secret: bearerToken(authorization) };
  return undefined;
}

/**
 * Who presented a credential: a user (the viewer, through an API key or a connected app's token),
 * or the ingestion service (a bearer token whose hash is the configured one; it reads nothing and
 * may only ingest recordings).
 */
export type Caller = { viewer: Viewer } | { ingestionService: true };

export interface CredentialPolicy {
  /** hex SHA-256 of the ingestion service's token; undefined: no such token is accepted. */
  ingestTokenSha256?: string | undefined;
}

/** A request without any credential (the GraphQL door's scopes and the subscription say it). */
export const missingCredentialMessage =
  "No API key was sent: send your API key in the X-Api-Key header (or a connected app's token as Authorization: Bearer <token>).";

/**
 * One message for every refusal (unknown, revoked, of a deactivated user, sent in the wrong
 * header), so that nobody learns whether a key exists; it lists what to check instead.
 */
export const refusedCredentialMessage =
  "The API key or token is not valid. Check that it was copied whole, that it has not been revoked or expired, that its user is still active, and that it is sent in the right header: an API key as X-Api-Key, a connected app's token as Authorization: Bearer <token>.";

/** Compared in constant time: both sides are 32-byte digests. */
function isServiceToken(secret: string, expectedSha256Hex: string | undefined): boolean {
  if (!expectedSha256Hex) return false;
  const expected = Buffer.from(expectedSha256Hex, 'hex');
  const presented = createHash('sha256').update(secret).digest();
  return expected.length === presented.length && timingSafeEqual(presented, expected);
}

/** Whether the headers present the ingestion service's token (no database involved). */
export function presentsIngestionToken(
  headers: { get(name: string): string | null },
  policy: CredentialPolicy,
): boolean {
  const authorization = headers.get('authorization');
  if (!authorization) return false;
  try {
    return isServiceToken(bearerToken(authorization), policy.ingestTokenSha256);
  } catch {
    return false; // not a bearer token at all
  }
}

/** How an organisation is read: by default a query; the credential cache keeps them for a while. */
export type OrganisationOf = (id: ObjectId) => Promise<OrganisationDoc | null>;

export async function authenticate(
  collections: Collections,
  presented: PresentedCredential,
  policy: CredentialPolicy = {},
  organisationOf: OrganisationOf = (id) => collections.organisations.findOne({ _id: id }),
): Promise<Caller> {
  if (presented.kind === 'bearer' && isServiceToken(presented.secret, policy.ingestTokenSha256))
    return { ingestionService: true };
  if (!mayBeApiKey(presented.secret)) throw new DomainError('UNAUTHENTICATED', refusedCredentialMessage);
  const credential = await collections.credentials.findOne({ secretHash: hashSecret(presented.secret) });
  const storedKind: CredentialKind = presented.kind === 'api_key' ? 'api_key' : 'connected_app';
  if (
    !credential ||
    credential.revokedAt !== null ||
    credential.kind !== storedKind ||
    (credential.expiresAt && credential.expiresAt.getTime() <= Date.now())
  ) {
    throw new DomainError('UNAUTHENTICATED', refusedCredentialMessage);
  }
  const user = await collections.users.findOne({ _id: credential.userId });
  if (user?.status !== 'active') throw new DomainError('UNAUTHENTICATED', refusedCredentialMessage);
  const org = await organisationOf(user.orgId);
  if (!org) throw new DomainError('UNAUTHENTICATED', refusedCredentialMessage);
  const viewer: Viewer = { user, org, via: credential.kind, credentialId: credential._id };
  if (credential.audience) viewer.audience = credential.audience;
  return { viewer };
}
