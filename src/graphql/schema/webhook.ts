/** Webhook; the `webhooks` query and the `createWebhook` / `deleteWebhook` mutations. */
import type { TriggeredFor, WebhookDoc } from '../../db/documents.js';
import { createWebhook, deleteWebhook, listWebhooks } from '../../domain/webhooks.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';

const TriggeredForEnum = builder.enumType('TriggeredFor', {
  values: {
    MY_RECORDINGS: {
      value: 'my_recordings',
      description: 'Your private and individually shared recordings.',
    },
    SHARED_EXTERNAL_RECORDINGS: {
      value: 'shared_external_recordings',
      description: 'Recordings shared with you by users outside your organisation.',
    },
    MY_SHARED_WITH_TEAM_RECORDINGS: {
      value: 'my_shared_with_team_recordings',
      description: 'Team plans: your recordings shared with at least one team.',
    },
    SHARED_TEAM_RECORDINGS: {
      value: 'shared_team_recordings',
      description: 'Team plans: recordings of others in your organisation that you may see.',
    },
  } as const satisfies Record<string, { value: TriggeredFor; description: string }>,
});

const Webhook = builder.objectRef<WebhookDoc>('Webhook').implement({
  description: 'A URL that receives new meeting content. Its signing secret is shown only by createWebhook.',
  fields: (t) => ({
    id: t.id({ resolve: (w) => w._id.toHexString() }),
    url: t.exposeString('url'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    includeTranscript: t.exposeBoolean('includeTranscript'),
    includeCrmMatches: t.exposeBoolean('includeCrmMatches'),
    includeSummary: t.exposeBoolean('includeSummary'),
    includeActionItems: t.exposeBoolean('includeActionItems'),
    triggeredFor: t.field({ type: [TriggeredForEnum], resolve: (w) => w.triggeredFor }),
  }),
});

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  fields: (t) => ({
    destinationUrl: t.string({ required: true }),
    triggeredFor: t.field({ type: [TriggeredForEnum], required: true }),
    includeTranscript: t.boolean({ required: false, defaultValue: false }),
    includeCrmMatches: t.boolean({ required: false, defaultValue: false }),
    includeSummary: t.boolean({ required: false, defaultValue: false }),
    includeActionItems: t.boolean({ required: false, defaultValue: false }),
  }),
});

const CreateWebhookPayload = builder.objectRef<WebhookDoc>('CreateWebhookPayload').implement({
  fields: (t) => ({
    webhook: t.field({ type: Webhook, resolve: (w) => w }),
    secret: t.exposeString('secret', {
      description: 'The signing secret (whsec_...). Shown this once: store it now.',
    }),
  }),
});

const DeleteWebhookPayload = builder.objectRef<{ deletedId: string }>('DeleteWebhookPayload').implement({
  fields: (t) => ({ deletedId: t.exposeID('deletedId') }),
});

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [Webhook],
    description: 'Your webhooks, newest first.',
    resolve: (_root, _args, context) => listWebhooks(context.collections, viewerOf(context)),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreateWebhookPayload,
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: (_root, { input }, context) =>
      createWebhook(context.collections, viewerOf(context), {
        destinationUrl: input.destinationUrl,
        triggeredFor: input.triggeredFor,
        includeTranscript: input.includeTranscript ?? false,
        includeCrmMatches: input.includeCrmMatches ?? false,
        includeSummary: input.includeSummary ?? false,
        includeActionItems: input.includeActionItems ?? false,
      }),
  }),
  deleteWebhook: t.field({
    type: DeleteWebhookPayload,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, context) => {
      await deleteWebhook(context.collections, viewerOf(context), String(id));
      return { deletedId: String(id) };
    },
  }),
}));
