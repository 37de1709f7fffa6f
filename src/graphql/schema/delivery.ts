/** `deliverTranscript` / `deliverSummary`: queue an asynchronous POST of one recording's content. */
import { type DeliveryContent, requestDelivery } from '../../domain/deliveries.js';
import { builder } from '../builder.js';
import { viewerOf } from '../context.js';

const DeliveryPayload = builder
  .objectRef<{ destinationUrl: string; messageId: string }>('DeliveryPayload')
  .implement({
    fields: (t) => ({
      destinationUrl: t.exposeString('destinationUrl', { description: 'Where the content will be POSTed.' }),
      messageId: t.exposeString('messageId', {
        description: 'Sent as the `webhook-id` header on every attempt of this delivery.',
      }),
    }),
  });

function deliveryMutation(content: DeliveryContent) {
  return builder.mutationField(content === 'transcript' ? 'deliverTranscript' : 'deliverSummary', (t) =>
    t.field({
      type: DeliveryPayload,
      description: `Queues a POST of the recording's ${content} (with recording_id) to destinationUrl; answers at once. Retried like webhook events.`,
      args: { recordingId: t.arg.int({ required: true }), destinationUrl: t.arg.string({ required: true }) },
      resolve: (_root, args, context) =>
        requestDelivery(
          context.collections,
          viewerOf(context),
          args.recordingId,
          content,
          args.destinationUrl,
          context.services.destinationCheck,
          context.services.outboxHint,
        ),
    }),
  );
}

deliveryMutation('transcript');
deliveryMutation('summary');
