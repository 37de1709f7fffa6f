/**
 * `npm run soak`: mixed REST and GraphQL load on the service for a while (default 60 s) while
 * recordings are ingested at a steady pace, so webhooks are delivered throughout; then checks that
 * no response was a 5xx, that every event of every ingested recording reached its receiver with a
 * valid Standard Webhooks signature, and that the service's RSS at the end is within 20% of its RSS
 * after the warm-up. Exit 0 when every check passes, 1 when one fails (with the reasons), 2 when the
 * run itself broke. Not part of `npm test`.
 *
 * Each phase below is a module of scripts/soak/. They reuse the benchmark's machinery: the embedded
 * engine and the service in their own processes (bench/ipc.ts, bench/engine.ts, bench/service.ts),
 * the generated dataset (bench/dataset.ts), the loopback receivers and mutations of the webhook
 * fan-out (bench/fanout.ts).
 *
 *   npm run soak -- --help
 */
import { Receivers } from '../bench/fanout.js';
import type { Child } from '../bench/ipc.js';
import { startProgress } from '../bench/progress.js';
import { drainDeliveries } from './soak/drain.js';
import { loadWhileIngesting } from './soak/load.js';
import { soakOptions, usage } from './soak/options.js';
import { reconcileDeliveries } from './soak/outbox.js';
import { prepareMix } from './soak/prepare-mix.js';
import { startStack } from './soak/stack.js';
import { Tally } from './soak/tally.js';
import { verdict } from './soak/verdict.js';
import { registerWebhooks } from './soak/webhooks.js';

async function main(): Promise<number> {
  const opts = soakOptions();
  if (opts.help) {
    process.stdout.write(usage);
    return 0;
  }
  const progress = startProgress();
  const children: Child[] = [];
  const receivers = new Receivers();
  try {
    const stack = await startStack(opts, children, progress);
    const webhookOfUrl = await registerWebhooks(stack.url, receivers, opts.webhooks);
    const tally = new Tally();
    const mix = await prepareMix(stack.url, tally);
    const load = await loadWhileIngesting(opts, stack, mix, tally, receivers, progress);
    const drain = await drainDeliveries(load.ingester, receivers, opts.webhooks, opts.drain);
    const deliveries = await reconcileDeliveries(
      stack.uri,
      load.ingester,
      receivers,
      webhookOfUrl,
      opts.webhooks,
    );
    return await verdict(opts, stack, { tally, load, drain, deliveries, receivers }, progress);
  } finally {
    await receivers.close().catch(() => {});
    // The service first, then the engine it uses.
    for (const child of children.reverse()) await child.stop().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
