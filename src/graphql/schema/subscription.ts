/**
 * The subscriptions (over server-sent events), each fed by a live feed of the domain that sees
 * what every process sharing the database does: `meetingContentReady`, meetings whose content
 * became ready; `meetingChanged`, the change feed's changes as they are logged. Each only to
 * subscribers who may see it.
 */
import { DomainError } from '../../domain/errors.js';
import { concerns } from '../../domain/meeting-changes.js';
import { missingCredentialMessage, type Viewer } from '../../domain/viewer.js';
import { canSee } from '../../domain/visibility.js';
import { builder } from '../builder.js';
import { type GraphQLContext, viewerOf } from '../context.js';
import { createLoaders } from '../loaders.js';
import { Meeting } from './meeting.js';
import { MeetingChange } from './meeting-change.js';

builder.subscriptionType({ authScopes: { authenticated: true } });

/** Who subscribes. Scope checks run on resolve, which comes after subscribe: anonymous callers are refused here. */
function subscriberOf(context: GraphQLContext): Viewer {
  if (!context.viewer) throw new DomainError('UNAUTHENTICATED', missingCredentialMessage);
  return viewerOf(context);
}

/** An event, resolved with fresh loaders: the subscription's context lives as long as it does, and a cache would go stale. */
function freshlyLoaded<T>(event: T, context: GraphQLContext): T {
  context.loaders = createLoaders(context.collections, context.viewer);
  return event;
}

builder.subscriptionField('meetingContentReady', (t) =>
  t.field({
    type: Meeting,
    description:
      'Each meeting you may see, once, when its content becomes ready (it is stored with its summary). Over SSE: POST /graphql with Accept: text/event-stream.',
    subscribe: (_root, _args, context) => {
      const viewer = subscriberOf(context);
      return context.services.contentReadyFeed.subscribe((meeting) => canSee(viewer, meeting));
    },
    resolve: (meeting, _args, context) => freshlyLoaded(meeting, context),
  }),
);

builder.subscriptionField('meetingChanged', (t) =>
  t.field({
    type: MeetingChange,
    description:
      'The changes meetingChanges lists, live, from when you subscribe: each change of a meeting you may see, or could see before it. Over SSE: POST /graphql with Accept: text/event-stream. To miss nothing across a disconnection, follow meetingChanges instead (it resumes from a cursor).',
    subscribe: (_root, _args, context) => {
      const viewer = subscriberOf(context);
      return context.services.liveChanges.subscribe((entry) => concerns(viewer, entry));
    },
    resolve: (entry, _args, context) => freshlyLoaded(entry, context),
  }),
);
