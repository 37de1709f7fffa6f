/**
 * Connected apps (OAuth clients) and the authorizations users gave them: `apps` and the
 * `registerApp`, `rotateAppSecret`, `deleteApp` mutations (account admins); `User.appAuthorizations`
 * (`viewer { appAuthorizations }` for your own; account admins see their users') and
 * `revokeAppAuthorization`. The rules are src/domain/apps.ts's and src/domain/grants.ts's.
 */
import type { AppDoc } from '../../db/documents.js';
import { appsOfOrganisation, deleteApp, registerApp, rotateAppSecret } from '../../domain/apps.js';
import { type AppAuthorization, authorizationsOf, revokeAuthorization } from '../../domain/grants.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';
import { User } from './user.js';

const AppKind = builder.enumType('AppKind', {
  description: 'How an app proves itself at the token endpoint.',
  values: {
    CONFIDENTIAL: { value: 'confidential', description: 'A server-side app: it holds a secret.' },
    PUBLIC: {
      value: 'public',
      description: 'A browser or desktop app, or an MCP client: no secret, PKCE (S256) required.',
    },
  } as const,
});

const App = builder.objectRef<AppDoc>('App').implement({
  description:
    'A connected app: an OAuth client that acts for the users who authorize it (docs/api/connected-apps.md).',
  fields: (t) => ({
    clientId: t.exposeString('clientId', { description: 'Its OAuth client_id.' }),
    name: t.exposeString('name', { description: 'Shown to users on the consent page.' }),
    kind: t.field({ type: AppKind, resolve: (a) => a.kind }),
    redirectUris: t.exposeStringList('redirectUris', {
      description: 'Where users are sent back with a code: matched exactly.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    secretRotatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When its secret was last replaced (rotateAppSecret); null: never.',
      resolve: (a) => a.secretRotatedAt,
    }),
  }),
});

const AppAuthorizationRef = builder.objectRef<AppAuthorization>('AppAuthorization').implement({
  description: 'An app a user authorized: it acts for them until they (or an account admin) revoke it.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The authorization (the OAuth grant); revokeAppAuthorization takes it.',
    }),
    clientId: t.exposeString('clientId'),
    appName: t.string({ nullable: true, resolve: (a) => a.app?.name ?? null }),
    grantedAt: t.expose('grantedAt', { type: 'DateTime' }),
  }),
});

builder.objectField(User, 'appAuthorizations', (t) =>
  t.field({
    type: [AppAuthorizationRef],
    nullable: true,
    description:
      "The apps the user authorized, newest first: your own, or (account admins) those of your organisation's users; null, with a FORBIDDEN error, for anyone else's.",
    resolve: (user, _args, context) => authorizationsOf(context.collections, viewerOf(context), user),
  }),
);

builder.queryFields((t) => ({
  apps: t.field({
    type: [App],
    description: "Your organisation's connected apps, newest first. Account admins only, with an API key.",
    resolve: (_root, _args, context) => appsOfOrganisation(context.collections, viewerOf(context)),
  }),
}));

const RegisterAppInput = builder.inputType('RegisterAppInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: '1 to 100 characters, shown on the consent page.' }),
    redirectUris: t.stringList({
      required: true,
      description: '1 to 10 absolute URLs: https, or http on 127.0.0.1, [::1] or localhost; no fragment.',
    }),
    kind: t.field({ type: AppKind, required: true }),
  }),
});

const AppWithSecret = builder
  .objectRef<{ app: AppDoc; clientSecret: string | null }>('AppWithSecret')
  .implement({
    fields: (t) => ({
      app: t.field({ type: App, resolve: (p) => p.app }),
      clientSecret: t.string({
        nullable: true,
        description: 'The client_secret (confidential apps). Shown this once: store it now.',
        resolve: (p) => p.clientSecret,
      }),
    }),
  });

builder.mutationFields((t) => ({
  registerApp: t.field({
    type: AppWithSecret,
    description: 'Registers a connected app of your organisation (account admins, with an API key).',
    args: { input: t.arg({ type: RegisterAppInput, required: true }) },
    resolve: (_root, { input }, context) =>
      registerApp(context.collections, viewerOf(context), {
        name: input.name,
        redirectUris: input.redirectUris,
        kind: input.kind,
      }),
  }),
  rotateAppSecret: t.field({
    type: AppWithSecret,
    description: 'Gives a confidential app a new secret; the old one stops working at once.',
    args: { clientId: t.arg.string({ required: true }) },
    resolve: (_root, { clientId }, context) =>
      rotateAppSecret(context.collections, viewerOf(context), clientId),
  }),
  deleteApp: t.field({
    type: App,
    description:
      'Deletes an app: every authorization of it is revoked, and its tokens stop working within seconds.',
    args: { clientId: t.arg.string({ required: true }) },
    resolve: (_root, { clientId }, context) => deleteApp(context.collections, viewerOf(context), clientId),
  }),
  revokeAppAuthorization: t.field({
    type: AppAuthorizationRef,
    description:
      "Revokes an app's authorization: yours, or (account admins) one of your organisation's users'. Its tokens stop working within seconds.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, context) =>
      revokeAuthorization(context.collections, viewerOf(context), String(id)),
  }),
}));
