/**
 * Apps as oidc-provider sees them (client metadata, RFC 7591 names), and the app a client that
 * registers itself becomes. Every app gets the authorization code grant with refresh tokens and
 * nothing else; a confidential app authenticates with its secret (in the form or HTTP Basic), a
 * public one with nothing but PKCE.
 */
import { ObjectId } from 'mongodb';
import type { AppDoc } from '../db/documents.js';

/** The metadata of an app. Its `client_secret` is the secret's hash: see `compareClientSecret` (provider.ts). */
export function clientMetadataOf(app: AppDoc): Record<string, unknown> {
  return {
    client_id: app.clientId,
    client_name: app.name,
    redirect_uris: app.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'public_api',
    id_token_signed_response_alg: 'ES256',
    token_endpoint_auth_method: app.kind === 'public' ? 'none' : 'client_secret_post',
    ...(app.kind === 'confidential' && app.secretHash ? { client_secret: app.secretHash } : {}),
  };
}

/** A client registered through RFC 7591 (public only: the registration policy refuses others). */
export function appOfRegistration(clientId: string, metadata: Record<string, unknown>): AppDoc {
  return {
    _id: new ObjectId(),
    clientId,
    name: typeof metadata.client_name === 'string' ? metadata.client_name : clientId,
    orgId: null,
    createdBy: null,
    redirectUris: Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.map(String) : [],
    kind: 'public',
    secretHash: null,
    createdAt: new Date(),
    secretRotatedAt: null,
  };
}
