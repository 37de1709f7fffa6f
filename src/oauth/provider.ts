/**
 * The OAuth 2.0 authorization server: oidc-provider (certified, maintained), configured for what
 * docs/api/connected-apps.md decides and nothing more: the authorization code grant with PKCE
 * (S256; required of public apps), refresh tokens always issued and rotated on every use, one scope
 * (`public_api`), opaque access tokens of an hour, RFC 7009 revocation, RFC 7591 registration of
 * public clients, RFC 8414 metadata (served by oauth/door.ts), `iss` in the authorization
 * response (RFC 9207). Its state is the service's database (storage.ts); sign-in and consent are
 * the service's own pages (interactions.ts).
 */

import { generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Collections } from '../db/collections.js';
import type { UserDoc } from '../db/documents.js';
import { newClientId, redirectUriProblem } from '../domain/apps.js';
import { serviceKey } from '../domain/service-keys.js';
import { hashSecret } from '../domain/viewer.js';
import { MCP_PATH } from '../mcp/endpoints.js';
import { INTERACTION_PATH, OAUTH_PATH, SCOPE } from './endpoints.js';
import { messagePage, pageHeaders } from './pages.js';
import { oauthAdapterFactory } from './storage.js';

/** The lifetimes of docs/api/connected-apps.md, in seconds. */
const ACCESS_TOKEN_TTL = 3600;
const CODE_TTL = 600;
/** Refresh tokens and grants last until revoked; the database keeps them ten years at most. */
const UNTIL_REVOKED = 10 * 365 * 24 * 3600;
/** A sign-in is remembered by the browser for two weeks; an interaction (sign-in and consent) lasts an hour. */
const SESSION_TTL = 14 * 24 * 3600;
const INTERACTION_TTL = 3600;

export interface ProviderOptions {
  collections: Collections;
  /** The service's public URL (no trailing slash): the issuer, and the audience of its tokens. */
  issuer: string;
  /** The user a sign-in is for; null when there is no such active user (tokens stop with them). */
  activeUser: (accountId: string) => Promise<UserDoc | null>;
}

/** The private key oidc-provider signs with (nothing it issues here is signed: tokens are opaque). */
async function signingKeys(collections: Collections) {
  const jwk = await serviceKey(collections, 'oauthSigningKey', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return Buffer.from(JSON.stringify(privateKey.export({ format: 'jwk' })));
  });
  return { keys: [JSON.parse(Buffer.from(jwk).toString('utf8'))] };
}

export async function createProvider({
  collections,
  issuer,
  activeUser,
}: ProviderOptions): Promise<Provider> {
  const cookieKey = Buffer.from(await serviceKey(collections, 'oauthCookies')).toString('base64url');
  const mcpResource = `${issuer}${MCP_PATH}`;
  const adapterOf = oauthAdapterFactory(collections, mcpResource);
  const secure = issuer.startsWith('https:');
  const configuration: Configuration = {
    // oidc-provider constructs an adapter per model: a constructor returning ours.
    adapter: function Adapter(this: unknown, model: string) {
      return adapterOf(model);
    } as unknown as Configuration['adapter'],
    jwks: await signingKeys(collections),
    cookies: {
      keys: [cookieKey],
      long: { signed: true, secure, sameSite: 'lax' },
      short: { signed: true, secure, sameSite: 'lax' },
    },
    routes: {
      authorization: `${OAUTH_PATH}/authorize`,
      token: `${OAUTH_PATH}/token`,
      revocation: `${OAUTH_PATH}/revoke`,
      registration: `${OAUTH_PATH}/register`,
      jwks: `${OAUTH_PATH}/jwks`,
      end_session: `${OAUTH_PATH}/session/end`,
      challenge: `${OAUTH_PATH}/challenge`,
      pushed_authorization_request: `${OAUTH_PATH}/par`,
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    scopes: [SCOPE],
    claims: { [SCOPE]: [] },
    responseTypes: ['code'],
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // What the provider's own keys sign (nothing it issues here, but every client states it).
      id_token_signed_response_alg: 'ES256',
      scope: SCOPE,
    },
    clientAuthMethods: ['client_secret_post', 'client_secret_basic', 'none'],
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: {
        enabled: true,
        // An app revokes its own tokens only; another's are left alone, answered 200 (RFC 7009 §2.2).
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      registration: {
        enabled: true,
        idFactory: newClientId,
        issueRegistrationAccessToken: false,
      },
      resourceIndicators: {
        enabled: true,
        // A token asked for without `resource` is for the REST and GraphQL doors; with
        // `resource=<issuer>/mcp`, for the MCP door only (RFC 8707).
        defaultResource: () => issuer,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          // oidc-provider drops scopes it does not know; here any other scope is refused.
          const unknown = String(ctx.oidc.params?.scope ?? '')
            .split(' ')
            .filter((scope) => scope && scope !== SCOPE);
          if (unknown.length > 0)
            throw new errors.InvalidScope(`the only scope is ${SCOPE}`, unknown.join(' '));
          if (resource !== issuer && resource !== mcpResource)
            throw new errors.InvalidTarget(
              `the resources are ${issuer} (the REST and GraphQL doors) and ${mcpResource} (the MCP door)`,
            );
          return {
            scope: SCOPE,
            accessTokenFormat: 'opaque',
            accessTokenTTL: ACCESS_TOKEN_TTL,
            audience: resource,
          };
        },
      },
    },
    // A browser app (a public client) calls the token endpoint from the origin it is sent back
    // to; nothing else is let through (oidc-provider's default, stated as ours).
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    extraClientMetadata: {
      // RFC 7591's software_id: no meaning here; declared so that the validator below runs once
      // for every client oidc-provider builds.
      properties: ['software_id'],
      // Registered apps were checked when made (domain/apps.ts). A client registering itself (the
      // request is the ctx) must be public, with redirect URIs as for any app.
      validator: (ctx, _key, _value, metadata) => {
        if (!ctx) return;
        if (metadata.token_endpoint_auth_method !== 'none')
          throw new errors.InvalidClientMetadata(
            'only public clients register themselves: token_endpoint_auth_method must be none',
          );
        for (const uri of metadata.redirect_uris ?? []) {
          const problem = redirectUriProblem(String(uri));
          if (problem) throw new errors.InvalidRedirectUri(`redirect_uris: ${uri} ${problem}`);
        }
      },
    },
    // An authorization request refused before it could go back to the app (an unknown app, a
    // redirect URI it did not register): a page, never a redirect.
    renderError: async (ctx, out) => {
      ctx.set(pageHeaders);
      ctx.body = messagePage(
        'The app’s request was refused',
        `${out.error}: ${out.error_description ?? 'the request is not valid'}. Tell the app’s makers; nothing was granted.`,
      );
    },
    findAccount: async (_ctx, accountId) => {
      const user = await activeUser(accountId);
      return user ? { accountId, claims: () => ({ sub: accountId }) } : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL,
      AuthorizationCode: CODE_TTL,
      RefreshToken: UNTIL_REVOKED,
      Grant: UNTIL_REVOKED,
      Session: SESSION_TTL,
      Interaction: INTERACTION_TTL,
    },
    // The grant consent just gave or this browser's session holds (oidc-provider's way); else, the
    // user's standing grant of the app: consent is remembered across browsers and sessions.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const clientId = ctx.oidc.client!.clientId;
      const given = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(clientId);
      if (given) return ctx.oidc.provider.Grant.find(given);
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId) return undefined;
      const standing = await collections.oauth.findOne({ model: 'Grant', accountId, clientId });
      return standing?.grantId ? ctx.oidc.provider.Grant.find(standing.grantId) : undefined;
    },
  };
  const provider = new Provider(issuer, configuration);
  // Apps' secrets are stored as their SHA-256: a presented secret is hashed, then compared.
  provider.Client.prototype.compareClientSecret = function compare(
    this: { clientSecret?: string },
    actual: string,
  ) {
    const stored = Buffer.from(this.clientSecret ?? '');
    const given = Buffer.from(hashSecret(actual));
    return Promise.resolve(stored.length === given.length && timingSafeEqual(stored, given));
  };
  // The door sets X-Forwarded-Host and -Proto from the public URL on every request it passes on.
  provider.proxy = true;
  return provider;
}
