/**
 * `meetingContentReady`: live updates (over server-sent events) of meetings whose content became
 * ready, in this process or any other sharing the database, each only to subscribers who may see it.
 */
import { DomainError } from '../../domain/errors.js';
import { missingCredentialMessage } from '../../domain/viewer.js';
import { canSee } from '../../domain/visibility.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';
import { createLoaders } from '../loaders.js';
import { Meeting } from './meeting.js';

builder.subscriptionType({ authScopes: { authenticated: true } });

builder.subscriptionField('meetingContentReady', (t) =>
  t.field({
    type: Meeting,
    description:
      'Each meeting you may see, once, when its content becomes ready (it is stored with its summary). Over SSE: POST /graphql with Accept: text/event-stream.',
    subscribe: (_root, _args, context) => {
      // Scope checks run on resolve, which comes after subscribe: refuse anonymous callers here.
      if (!context.viewer) throw new DomainError('UNAUTHENTICATED', missingCredentialMessage);
      const viewer = viewerOf(context);
      return context.services.contentReadyFeed.subscribe((meeting) => canSee(viewer, meeting));
    },
    resolve: (meeting, _args, context) => {
      // The subscription's context lives as long as it does: fresh loaders per event, no stale cache.
      context.loaders = createLoaders(context.collections, context.viewer);
      return meeting;
    },
  }),
);
