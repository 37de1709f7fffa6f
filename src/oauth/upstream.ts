/**
 * Sign-in at the organisation's identity provider (OpenID Connect, `OIDC_ISSUER`), through
 * `openid-client` (certified): the authorization code flow with PKCE, state and nonce, asking for
 * `openid email`. The person is the active user whose email the ID token names, verified
 * (`email_verified: true`); anyone else is turned away and nothing is granted.
 *
 * A sign-in spans two requests of the browser: it leaves from an authorization request's sign-in
 * step and comes back to `/external/v1/oauth2/callback`. What the return needs (which
 * authorization request, the nonce, the PKCE verifier) is an `oauth` record keyed by the hash of
 * the state, used once and gone after ten minutes.
 */
import * as oidc from 'openid-client';
import type { Collections } from '../db/collections.js';
import { hashSecret } from '../domain/viewer.js';

/** How long a person may take at the identity provider. */
const SIGN_IN_TTL_MS = 10 * 60_000;
const MODEL = 'UpstreamSignIn';

export interface UpstreamSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** What came back from the identity provider, for the authorization request `uid`. */
export type UpstreamOutcome = { uid: string; email: string } | { uid: string | null; problem: string };

export class UpstreamSignIn {
  private constructor(
    private readonly config: oidc.Configuration,
    private readonly collections: Collections,
    /** Where the identity provider sends the browser back (registered there). */
    readonly callbackUrl: string,
  ) {}

  /** Reads the identity provider's metadata (OpenID Connect discovery). */
  static async discover(
    settings: UpstreamSettings,
    collections: Collections,
    callbackUrl: string,
  ): Promise<UpstreamSignIn> {
    const issuer = new URL(settings.issuer);
    const config = await oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
      // An identity provider on this machine (a test's, a developer's) may speak plain http.
      execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
    });
    return new UpstreamSignIn(config, collections, callbackUrl);
  }

  /** Where to send the browser to sign in, for the authorization request `uid`. */
  async start(uid: string): Promise<string> {
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    await this.collections.oauth.insertOne({
      _id: `${MODEL}:${hashSecret(state)}`,
      model: MODEL,
      payload: { uid, nonce, verifier },
      expiresAt: new Date(Date.now() + SIGN_IN_TTL_MS),
    });
    return oidc.buildAuthorizationUrl(this.config, {
      redirect_uri: this.callbackUrl,
      scope: 'openid email',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href;
  }

  /** The browser's return (`currentUrl`, with its code and state): who signed in, or why not. */
  async finish(currentUrl: URL): Promise<UpstreamOutcome> {
    const state = currentUrl.searchParams.get('state') ?? '';
    const started = await this.collections.oauth.findOneAndDelete({ _id: `${MODEL}:${hashSecret(state)}` });
    if (!started || (started.expiresAt && started.expiresAt.getTime() <= Date.now()))
      return {
        uid: null,
        problem: 'This sign-in has ended or was never started here. Go back to the app and start again.',
      };
    const { uid, nonce, verifier } = started.payload as { uid: string; nonce: string; verifier: string };
    const callback = new URL(this.callbackUrl);
    callback.search = currentUrl.search;
    try {
      const tokens = await oidc.authorizationCodeGrant(this.config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      // The email is in the ID token, or (OpenID Connect's conforming providers) at userinfo.
      let claims: Record<string, unknown> | undefined = tokens.claims();
      if (claims && claims.email === undefined)
        claims = await oidc.fetchUserInfo(this.config, tokens.access_token, tokens.claims()!.sub);
      const email = typeof claims?.email === 'string' ? claims.email.toLowerCase() : undefined;
      if (!email) return { uid, problem: 'Your identity provider did not say who you are (no email).' };
      if (claims?.email_verified !== true)
        return { uid, problem: `Your identity provider has not verified ${email}.` };
      return { uid, email };
    } catch (error) {
      const reason = currentUrl.searchParams.get('error_description') ?? (error as Error).message;
      return { uid, problem: `The sign-in at your identity provider did not succeed: ${reason}` };
    }
  }
}
