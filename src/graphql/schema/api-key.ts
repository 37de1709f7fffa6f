/**
 * ApiKey; `User.apiKeys` (`viewer { apiKeys }` for your own; account admins see their users'); the
 * `createApiKey` and `revokeApiKey` mutations. The rules are src/domain/api-keys.ts's.
 */
import type { CredentialDoc } from '../../db/documents.js';
import { assertMayManage, createApiKey, revokeApiKey } from '../../domain/api-keys.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';
import { User } from './user.js';

const ApiKey = builder.objectRef<CredentialDoc>('ApiKey').implement({
  description:
    'An API key. Its secret is shown once, when it is made (createApiKey); listings show its prefix.',
  fields: (t) => ({
    id: t.id({ resolve: (k) => k._id.toHexString() }),
    name: t.string({ resolve: (k) => k.label }),
    prefix: t.exposeString('prefix', {
      description: 'Its first 12 characters (mgk_ and 8 more), to tell keys apart.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last sent (recorded every few seconds); null if never.',
      resolve: (k) => k.lastUsedAt ?? null,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After this it is refused (401); null: it does not expire.',
      resolve: (k) => k.expiresAt ?? null,
    }),
    revokedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Set by revokeApiKey: from then on it is refused (401).',
      resolve: (k) => k.revokedAt,
    }),
  }),
});

builder.objectField(User, 'apiKeys', (t) =>
  t.field({
    type: [ApiKey],
    // Nullable: another user's keys are an error of that user's field only, not of the whole list.
    nullable: true,
    description:
      "The user's API keys that are not revoked, newest first: your own, or (account admins) those of your organisation's users; null, with a FORBIDDEN error, for anyone else's.",
    resolve: (user, _args, context) => {
      assertMayManage(viewerOf(context), user);
      return context.loaders.apiKeys.load(user._id);
    },
  }),
);

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'What it is for: 1 to 100 characters.' }),
    expiresAt: t.field({
      type: 'DateTime',
      required: false,
      description: 'When it stops working (in the future); omitted: never.',
    }),
  }),
});

const CreateApiKeyPayload = builder
  .objectRef<{ key: string; apiKey: CredentialDoc }>('CreateApiKeyPayload')
  .implement({
    fields: (t) => ({
      key: t.exposeString('key', {
        description: 'The key, to send as X-Api-Key. Shown this once: store it now.',
      }),
      apiKey: t.field({ type: ApiKey, resolve: (p) => p.apiKey }),
    }),
  });

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreateApiKeyPayload,
    description:
      'Makes an API key of yours (with an API key: not with a connected app token). It works on both doors at once.',
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, { input }, context) =>
      createApiKey(context.collections, viewerOf(context), {
        name: input.name,
        expiresAt: input.expiresAt ?? null,
      }),
  }),
  revokeApiKey: t.field({
    type: ApiKey,
    description:
      'Revokes a key of yours, or (account admins) of a user of your organisation: every process refuses it within seconds. Revoking it again changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, context) => revokeApiKey(context.collections, viewerOf(context), String(id)),
  }),
}));
