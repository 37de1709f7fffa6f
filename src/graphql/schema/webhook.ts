/**
 * Webhook with its deliveries and their attempts; the `webhooks` and `webhook` queries; the
 * `createWebhook`, `deleteWebhook`, `rotateWebhookSecret`, `enableWebhook`, `redeliverWebhookEvent`
 * and `redeliverFailedWebhookEvents` mutations.
 */
import type {
  AttemptOutcome,
  DeliveryAttemptDoc,
  OutboxDoc,
  OutboxStatus,
  TriggeredFor,
  WebhookDoc,
  WebhookEventType,
} from '../../db/documents.js';
import { eventsOf } from '../../domain/content-ready.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  listWebhookEvents,
  listWebhooks,
  ownWebhook,
  redeliverEvent,
  redeliverFailedEvents,
  rotateWebhookSecret,
} from '../../domain/webhooks.js';
import { builder } from '../builder.js';
import { connectionOf, listType, pageArgs } from '../connection.js';
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

const DeliveryStatusEnum = builder.enumType('DeliveryStatus', {
  values: {
    PENDING: { value: 'pending', description: 'Waiting for its next attempt (or being attempted).' },
    DELIVERED: { value: 'delivered', description: 'The receiver answered 2xx.' },
    FAILED: {
      value: 'failed',
      description:
        'Every retry failed, the receiver answered 410, or the webhook is disabled. Can be redelivered.',
    },
    CANCELLED: {
      value: 'cancelled',
      description: 'Nothing may be sent any more: the owner may no longer see the recording.',
    },
  } as const satisfies Record<string, { value: OutboxStatus; description: string }>,
});

const AttemptOutcomeEnum = builder.enumType('DeliveryAttemptOutcome', {
  values: {
    DELIVERED: { value: 'delivered' },
    RETRY: { value: 'retry', description: 'Failed; another attempt is scheduled.' },
    FAILED: { value: 'failed', description: 'Failed, and it was the last attempt.' },
    GONE: { value: 'gone', description: 'The receiver answered 410: the webhook was disabled.' },
  } as const satisfies Record<string, { value: AttemptOutcome; description?: string }>,
});

const DeliveryAttempt = builder.objectRef<DeliveryAttemptDoc>('DeliveryAttempt').implement({
  description: 'One POST of an event to the webhook URL.',
  fields: (t) => ({
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs'),
    responseStatus: t.exposeInt('responseStatus', {
      nullable: true,
      description:
        'The HTTP status the receiver answered; null when none came (timeout, refused connection).',
    }),
    error: t.exposeString('error', { nullable: true }),
    outcome: t.field({ type: AttemptOutcomeEnum, resolve: (a) => a.outcome }),
  }),
});

const WebhookEventEnum = builder.enumType('WebhookEvent', {
  values: {
    CONTENT_READY: {
      value: 'content_ready',
      description:
        'A meeting whose content became ready (stored with its summary), once; its body is the bare Meeting, as the public API sends it.',
    },
    MEETING_UPDATED: {
      value: 'meeting.updated',
      description:
        "A meeting you may see changed (content or sharing), after it was created. Body: Standard Webhooks' {type, timestamp, data: {recording_id, changes, meeting}}.",
    },
    MEETING_DELETED: {
      value: 'meeting.deleted',
      description:
        'A meeting you could see was deleted, or is no longer shared with you. Body: {type, timestamp, data: {recording_id, reason: "deleted" | "unshared"}}.',
    },
  } as const satisfies Record<string, { value: WebhookEventType; description: string }>,
});

const WebhookDelivery = builder.objectRef<OutboxDoc>('WebhookDelivery').implement({
  description: 'One event sent to a webhook.',
  fields: (t) => ({
    id: t.id({
      description: 'The event id, sent as the `webhook-id` header on every attempt.',
      resolve: (d) => d.messageId,
    }),
    event: t.field({
      type: WebhookEventEnum,
      resolve: (d) => d.change?.type ?? 'content_ready',
    }),
    recordingId: t.exposeInt('recordingId'),
    status: t.field({ type: DeliveryStatusEnum, resolve: (d) => d.status }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    attemptCount: t.exposeInt('attempts', {
      description: 'Attempts since it was queued or last redelivered.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null unless pending.',
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    lastError: t.exposeString('lastError', { nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    attempts: t.field({
      type: [DeliveryAttempt],
      description: 'Every attempt, oldest first (redeliveries included).',
      resolve: (d, _a, context) => context.loaders.deliveryAttempts.load(d._id),
    }),
  }),
});

const WebhookDeliveryList = listType('WebhookDeliveriesConnection', WebhookDelivery);

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
    events: t.field({ type: [WebhookEventEnum], resolve: (w) => eventsOf(w) }),
    enabled: t.boolean({ resolve: (w) => !w.disabledAt }),
    disabledAt: t.field({ type: 'DateTime', nullable: true, resolve: (w) => w.disabledAt ?? null }),
    disabledReason: t.string({
      nullable: true,
      description: 'Why deliveries stopped: a 410 from the receiver, or 5 days of failures.',
      resolve: (w) => w.disabledReason ?? null,
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After rotateWebhookSecret: until when the former secret signs too.',
      resolve: (w) => w.previousSecret?.expiresAt ?? null,
    }),
    deliveries: t.field({
      type: WebhookDeliveryList,
      // Nullable: a bad cursor is an error of this webhook's list only, not of the whole answer.
      nullable: true,
      description:
        'Events sent (or to be sent) to this webhook, newest first. Null, with an error, for a bad cursor. To page one webhook, query `webhook(id:)`.',
      args: pageArgs(
        "The endCursor of the previous page of this webhook's deliveries. A cursor of another webhook's deliveries is not one of this list's: this list serves its first page.",
      ),
      resolve: async (w, args, context) =>
        connectionOf(await listWebhookEvents(context.collections, w, args)),
    }),
  }),
});

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  fields: (t) => ({
    destinationUrl: t.string({
      required: true,
      description: 'http(s); its host must resolve to public addresses only.',
    }),
    triggeredFor: t.field({ type: [TriggeredForEnum], required: true }),
    includeTranscript: t.boolean({ required: false, defaultValue: false }),
    includeCrmMatches: t.boolean({ required: false, defaultValue: false }),
    includeSummary: t.boolean({ required: false, defaultValue: false }),
    includeActionItems: t.boolean({ required: false, defaultValue: false }),
    events: t.field({
      type: [WebhookEventEnum],
      required: false,
      defaultValue: ['content_ready'],
      description:
        'What it is sent: content ready alone by default (as webhooks made through REST); add MEETING_UPDATED and MEETING_DELETED to keep a mirror in sync. Each is sent for the meetings triggeredFor covers.',
    }),
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

const RotateWebhookSecretPayload = builder
  .objectRef<{ webhook: WebhookDoc; secret: string; previousSecretExpiresAt: Date }>(
    'RotateWebhookSecretPayload',
  )
  .implement({
    fields: (t) => ({
      webhook: t.field({ type: Webhook, resolve: (r) => r.webhook }),
      secret: t.exposeString('secret', { description: 'The new signing secret. Shown this once.' }),
      previousSecretExpiresAt: t.expose('previousSecretExpiresAt', {
        type: 'DateTime',
        description: 'Until then every event is signed with both secrets (two space-separated signatures).',
      }),
    }),
  });

const RedeliverFailedPayload = builder
  .objectRef<{ count: number }>('RedeliverFailedWebhookEventsPayload')
  .implement({
    fields: (t) => ({
      count: t.exposeInt('count', { description: 'How many failed events were queued again.' }),
    }),
  });

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [Webhook],
    description: 'Your webhooks, newest first.',
    resolve: (_root, _args, context) => listWebhooks(context.collections, viewerOf(context)),
  }),
  webhook: t.field({
    type: Webhook,
    nullable: true,
    description: 'One of your webhooks by id; null when it does not exist or is not yours.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, context) => ownWebhook(context.collections, viewerOf(context), String(id)),
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreateWebhookPayload,
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: (_root, { input }, context) =>
      createWebhook(
        context.collections,
        viewerOf(context),
        {
          destinationUrl: input.destinationUrl,
          triggeredFor: input.triggeredFor,
          includeTranscript: input.includeTranscript ?? false,
          includeCrmMatches: input.includeCrmMatches ?? false,
          includeSummary: input.includeSummary ?? false,
          includeActionItems: input.includeActionItems ?? false,
          events: input.events ?? ['content_ready'],
        },
        context.services.destinationCheck,
      ),
  }),
  deleteWebhook: t.field({
    type: DeleteWebhookPayload,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, context) => {
      await deleteWebhook(context.collections, viewerOf(context), String(id));
      return { deletedId: String(id) };
    },
  }),
  rotateWebhookSecret: t.field({
    type: RotateWebhookSecretPayload,
    description:
      'Issues a new signing secret. For 24 hours events carry two signatures, one per secret, so receivers can switch over.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, context) =>
      rotateWebhookSecret(context.collections, viewerOf(context), String(id)),
  }),
  enableWebhook: t.field({
    type: Webhook,
    description: 'Re-enables a disabled webhook. Events that failed meanwhile stay failed: redeliver them.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, context) => enableWebhook(context.collections, viewerOf(context), String(id)),
  }),
  redeliverWebhookEvent: t.field({
    type: WebhookDelivery,
    description:
      'Sends a delivered, failed or cancelled event again, with the same id and body, on a fresh retry schedule.',
    args: {
      webhookId: t.arg.id({ required: true }),
      eventId: t.arg.id({ required: true, description: 'The WebhookDelivery id (webhook-id header).' }),
    },
    resolve: (_root, args, context) =>
      redeliverEvent(
        context.collections,
        viewerOf(context),
        String(args.webhookId),
        String(args.eventId),
        context.services.outboxHint,
      ),
  }),
  redeliverFailedWebhookEvents: t.field({
    type: RedeliverFailedPayload,
    description: 'Sends again every failed event of the webhook created at or after `since`.',
    args: { webhookId: t.arg.id({ required: true }), since: t.arg({ type: 'DateTime', required: true }) },
    resolve: async (_root, args, context) => ({
      count: await redeliverFailedEvents(
        context.collections,
        viewerOf(context),
        String(args.webhookId),
        args.since,
        context.services.outboxHint,
      ),
    }),
  }),
}));
