/**
 * The OAuth door: the authorization server's endpoints (provider.ts, under /external/v1/oauth2/),
 * its RFC 8414 metadata at /.well-known/oauth-authorization-server, and the pages a person sees
 * while authorizing an app (sign-in, consent), all on the service's one HTTP server.
 *
 * The provider is made at the first request: its issuer is the service's public URL, which without
 * PUBLIC_URL is only known once the server listens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ObjectId } from 'mongodb';
import type { KoaContextWithOIDC, default as Provider } from 'oidc-provider';
import type { Collections } from '../db/collections.js';
import type { UserDoc } from '../db/documents.js';
import { isDatabaseUnavailable } from '../db/outage.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { hashSecret } from '../domain/viewer.js';
import { readBody } from '../http/read-body.js';
import type { Door } from '../http/server.js';
import type { Logger } from '../logger.js';
import { INTERACTION_PATH, METADATA_PATH, OAUTH_PATH, SCOPE, UPSTREAM_CALLBACK_PATH } from './endpoints.js';
import { consentPage, type DemoAccount, demoSignInPage, messagePage, pageHeaders } from './pages.js';
import type { UpstreamSettings, UpstreamSignIn } from './upstream.js';

const MAX_FORM_BYTES = 8 * 1024;
const AUTHORIZE_PATH = `${OAUTH_PATH}/authorize`;

/** An authorization request without a scope asks for the one scope (the public service's way). */
function withDefaultScope(url: string): string {
  const parsed = new URL(url, 'http://x');
  if (parsed.searchParams.get('scope')) return url;
  parsed.searchParams.set('scope', SCOPE);
  return `${parsed.pathname}${parsed.search}`;
}

export interface OAuthDoorOptions {
  collections: Collections;
  logger: Logger;
  /** The service's public URL, no trailing slash (known once it listens). */
  publicUrl: () => string;
  /** Who may sign in on the demo page: while the demo data is loaded and no upstream is set. */
  demoAccounts: readonly DemoAccount[];
  /** The organisation's identity provider (OIDC_*); when set, the only way to sign in. */
  upstream?: UpstreamSettings | undefined;
}

/** What an identity provider's answer came to, kept for the sign-in step it returns to. */
const OUTCOME = 'UpstreamOutcome';

function sendPage(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...pageHeaders, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The answer while the database is down: 503 with Retry-After, as JSON on the endpoints apps call
 * (RFC 6749's temporarily_unavailable) and as a page where a person's browser is.
 */
function unavailableAnswer(pathname: string): {
  status: number;
  headers: Record<string, string>;
  body: string;
} {
  const retry = { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' };
  if (/\/(token|revoke|register)$/.test(pathname) || pathname === METADATA_PATH)
    return {
      status: 503,
      headers: { ...retry, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        error: 'temporarily_unavailable',
        error_description: `The service's database is unavailable: retry in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s.`,
      }),
    };
  return {
    status: 503,
    headers: { ...retry, ...pageHeaders },
    body: messagePage(
      'Try again shortly',
      'The service cannot reach its database just now. Nothing was granted; reload this page in a few seconds.',
    ),
  };
}

class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** A form post must come from our own pages: a cross-site one (a forged consent) is refused. */
function assertSameOrigin(req: IncomingMessage, publicUrl: string): void {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  const sameOrigin = origin === undefined || origin === new URL(publicUrl).origin;
  if ((site !== undefined && site !== 'same-origin') || !sameOrigin)
    throw new PageError(403, 'Not allowed', 'This form can only be sent from the page that showed it.');
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new PageError(415, 'Not a form', 'Send the form as application/x-www-form-urlencoded.');
  const bytes = await readBody(
    req,
    MAX_FORM_BYTES,
    () => new PageError(413, 'Too large', `A form is at most ${MAX_FORM_BYTES / 1024} KiB.`),
  );
  return new URLSearchParams(bytes.toString('utf8'));
}

/** The people of the demo personas who may sign in (one entry each; the door checks they are active). */
export function demoAccountsOf(personas: readonly { email: string; label: string }[]): DemoAccount[] {
  const accounts = new Map<string, DemoAccount>();
  for (const { email, label } of personas)
    if (!label.includes('(401)') && !accounts.has(email)) accounts.set(email, { email, label });
  return [...accounts.values()];
}

export function oauthDoors({
  collections,
  logger,
  publicUrl,
  demoAccounts,
  upstream,
}: OAuthDoorOptions): Door[] {
  let made:
    | Promise<{ op: Provider; serve: ReturnType<Provider['callback']>; signIn: UpstreamSignIn | undefined }>
    | undefined;
  const activeUser = async (accountId: string): Promise<UserDoc | null> => {
    if (!ObjectId.isValid(accountId)) return null;
    const user = await collections.users.findOne({ _id: new ObjectId(accountId) });
    return user?.status === 'active' ? user : null;
  };
  const provider = () => {
    // Loaded at the first request, not at start: a service nobody authorizes apps on never loads it.
    made ??= Promise.all([
      import('./provider.js').then(({ createProvider }) =>
        createProvider({ collections, issuer: publicUrl(), activeUser }),
      ),
      upstream
        ? import('./upstream.js').then(({ UpstreamSignIn }) =>
            UpstreamSignIn.discover(upstream, collections, `${publicUrl()}${UPSTREAM_CALLBACK_PATH}`),
          )
        : undefined,
    ]).then(
      ([op, signIn]) => {
        // Its own failures (a 500 it answered): the operators' to see, without the request's
        // secrets. A database outage is not one: it becomes a 503 (below), as on every door.
        op.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
          if (isDatabaseUnavailable(error)) ctx.state.outage = true;
          else logger.error({ err: error }, 'the authorization server failed a request');
        });
        op.use(async (ctx, next) => {
          await next();
          if (ctx.state.outage) {
            const { status, headers, body } = unavailableAnswer(ctx.path);
            ctx.status = status;
            ctx.set(headers);
            ctx.body = body;
          }
        });
        return { op, serve: op.callback(), signIn };
      },
      (error) => {
        made = undefined; // a database hiccup: made again at the next request
        throw error;
      },
    );
    return made;
  };
  // The demo sign-in only while no identity provider is configured.
  const demo = new Map(upstream ? [] : demoAccounts.map((a) => [a.email, a]));

  async function interaction(
    req: IncomingMessage,
    res: ServerResponse,
    op: Provider,
    signIn: UpstreamSignIn | undefined,
    rest: string,
  ): Promise<void> {
    const [uid, step] = rest.split('/');
    const details = await op.interactionDetails(req, res).catch(() => {
      throw new PageError(
        400,
        'This sign-in has ended',
        'It was finished, cancelled or took longer than an hour, or it was opened in another browser. Go back to the app and start again.',
      );
    });
    if (details.uid !== uid)
      throw new PageError(400, 'This sign-in has ended', 'Go back to the app and start again.');
    const client = await op.Client.find(String(details.params.client_id));
    if (!client)
      throw new PageError(400, 'Unknown app', 'The app asking for access does not exist any more.');
    const appName = client.clientName ?? client.clientId;
    const action = `${INTERACTION_PATH}${uid}/${details.prompt.name}`;

    // Back from the identity provider (through the callback below): the person it named, if active.
    if (req.method === 'GET' && step === 'upstream' && details.prompt.name === 'login') {
      const outcome = await collections.oauth.findOneAndDelete({ _id: `${OUTCOME}:${hashSecret(uid!)}` });
      const said = outcome?.payload as { email?: string; problem?: string } | undefined;
      if (!said?.email)
        throw new PageError(403, 'Not signed in', said?.problem ?? 'Go back to the app and start again.');
      const user = await collections.users.findOne({ email: said.email });
      if (user?.status !== 'active')
        throw new PageError(
          403,
          'Not allowed',
          `No active user has the email ${said.email} here: ask your organisation's account admin. Nothing was granted.`,
        );
      return op.interactionFinished(req, res, {
        login: { accountId: user._id.toHexString(), remember: false },
      });
    }

    if (req.method === 'GET' && step === undefined) {
      if (details.prompt.name === 'login') {
        if (signIn) {
          res.writeHead(303, { location: await signIn.start(uid!), 'cache-control': 'no-store' });
          res.end();
          return;
        }
        if (demo.size === 0)
          throw new PageError(
            501,
            'Sign-in is not set up',
            'This service signs nobody in: its operator has configured no identity provider (OIDC_ISSUER).',
          );
        return sendPage(res, 200, demoSignInPage(action, appName, [...demo.values()]));
      }
      const app = await collections.apps.findOne({ clientId: client.clientId });
      const org = app?.orgId ? await collections.organisations.findOne({ _id: app.orgId }) : null;
      const user = await activeUser(String(details.session?.accountId));
      if (!user) throw new PageError(403, 'Not allowed', 'Your account is not active.');
      return sendPage(
        res,
        200,
        consentPage(action, {
          appName,
          organisation: org?.name ?? null,
          redirectHost: new URL(String(details.params.redirect_uri)).host,
          userEmail: user.email,
        }),
      );
    }

    if (req.method !== 'POST' || step !== details.prompt.name)
      throw new PageError(405, 'Not allowed', 'Go back to the app and start again.');
    assertSameOrigin(req, publicUrl());
    const form = await readForm(req);

    if (step === 'login') {
      if (form.has('cancel'))
        return op.interactionFinished(req, res, {
          error: 'access_denied',
          error_description: 'The user cancelled the sign-in.',
        });
      const email = form.get('email') ?? '';
      const user = demo.has(email) ? await collections.users.findOne({ email }) : null;
      if (user?.status !== 'active')
        throw new PageError(403, 'Not allowed', `${email || 'This person'} may not sign in here.`);
      return op.interactionFinished(req, res, {
        login: { accountId: user._id.toHexString(), remember: false },
      });
    }

    if (form.get('decision') !== 'allow')
      return op.interactionFinished(req, res, {
        error: 'access_denied',
        error_description: 'The user denied access.',
      });
    const accountId = String(details.session?.accountId);
    const grant = details.grantId
      ? ((await op.Grant.find(details.grantId)) ?? new op.Grant({ accountId, clientId: client.clientId }))
      : new op.Grant({ accountId, clientId: client.clientId });
    // What the request asks for and no grant covers yet (oidc-provider's prompt details): the one
    // scope, for the service's doors.
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    return op.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /**
   * The identity provider sends the browser back here: what it said is kept for the sign-in step
   * of the authorization request, where the browser goes next (its cookie is scoped there).
   */
  async function callback(req: IncomingMessage, res: ServerResponse, signIn: UpstreamSignIn): Promise<void> {
    const outcome = await signIn.finish(new URL(req.url ?? '/', publicUrl()));
    if (outcome.uid === null)
      throw new PageError(400, 'This sign-in has ended', 'problem' in outcome ? outcome.problem : '');
    await collections.oauth.insertOne({
      _id: `${OUTCOME}:${hashSecret(outcome.uid)}`,
      model: OUTCOME,
      payload: 'email' in outcome ? { email: outcome.email } : { problem: outcome.problem },
      expiresAt: new Date(Date.now() + 10 * 60_000),
    });
    res.writeHead(303, {
      location: `${INTERACTION_PATH}${outcome.uid}/upstream`,
      'cache-control': 'no-store',
    });
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0]!;
    try {
      const { op, serve, signIn } = await provider();
      if (pathname.startsWith(INTERACTION_PATH))
        return await interaction(req, res, op, signIn, pathname.slice(INTERACTION_PATH.length));
      if (pathname === UPSTREAM_CALLBACK_PATH && signIn) return await callback(req, res, signIn);
      // RFC 8414 metadata is the provider's discovery document, at the path OAuth clients look.
      if (pathname === METADATA_PATH) req.url = '/.well-known/openid-configuration';
      if (pathname === AUTHORIZE_PATH) req.url = withDefaultScope(req.url!);
      // Every URL it writes (metadata, redirects, cookies' Secure) is the public URL's, never the
      // Host a request claims: the provider reads these two headers (it runs as behind a proxy).
      const { host, protocol } = new URL(publicUrl());
      req.headers['x-forwarded-host'] = host;
      req.headers['x-forwarded-proto'] = protocol.slice(0, -1);
      await serve(req, res);
    } catch (error) {
      if (isDatabaseUnavailable(error) && !res.headersSent) {
        const { status, headers, body } = unavailableAnswer(pathname);
        res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      if (!(error instanceof PageError)) throw error;
      logger.debug({ status: error.status, reason: error.message }, 'oauth page refused');
      sendPage(res, error.status, messagePage(error.title, error.message));
    }
  }

  return [
    { path: `${OAUTH_PATH}/`, handler: handle },
    { path: METADATA_PATH, handler: handle },
  ];
}
