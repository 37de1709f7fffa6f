/**
 * The soak's webhooks: one loopback receiver each (bench/fanout.ts, Receivers), registered through
 * the API by users 1, 2, ... with various includes, so that every recording the ingester makes
 * matches each of them (user 1's own by MY_SHARED_WITH_TEAM_RECORDINGS, the others by
 * SHARED_TEAM_RECORDINGS). Each receiver checks signatures with its webhook's secret.
 */
import { benchUsers } from '../../bench/dataset.js';
import { createWebhookMutation, graphql, type Receivers } from '../../bench/fanout.js';

/** Returns each receiver's URL with the index of its webhook. */
export async function registerWebhooks(
  url: string,
  receivers: Receivers,
  webhooks: number,
): Promise<Map<string, number>> {
  await receivers.start(webhooks);
  const webhookOfUrl = new Map<string, number>();
  for (let i = 0; i < webhooks; i++) {
    const owner = benchUsers[1 + i]!;
    const answer = await graphql(url, { 'x-api-key': owner.apiKey }, createWebhookMutation, {
      input: {
        destinationUrl: receivers.urls[i],
        triggeredFor: [i === 0 ? 'MY_SHARED_WITH_TEAM_RECORDINGS' : 'SHARED_TEAM_RECORDINGS'],
        includeSummary: true,
        includeActionItems: i % 3 === 0,
        includeCrmMatches: i % 4 === 1,
        includeTranscript: i % 2 === 0,
      },
    });
    const secret = answer.data?.createWebhook?.secret as string | undefined;
    if (!secret) throw new Error(`createWebhook failed: ${JSON.stringify(answer.errors ?? answer)}`);
    receivers.verifyWith(i, secret);
    webhookOfUrl.set(receivers.urls[i]!, i);
  }
  return webhookOfUrl;
}
