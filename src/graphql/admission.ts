/**
 * Load shedding: before an operation executes, the content it will produce is estimated from what
 * it selects (page sizes × content kinds, after @skip/@include), and excess work is refused at once
 * instead of queued, so memory stays bounded and small requests stay fast:
 *
 * - a credential may run a few heavy operations at once, and hold at most a share of the budget
 *   (429, like Stripe's concurrency limiter);
 * - the process produces at most `budgetBytes` of estimated content at once (503); an operation
 *   larger than the whole budget runs only when nothing else is producing content;
 * - while the event loop runs behind (see overload.ts) no content is taken on (503): shedding then
 *   keeps the loop from saturating, where every wait, the database driver's too, runs out.
 *
 * Operations that select no content (lists of titles, the viewer, teams, health) cost nothing and
 * are never shed. The estimate is held until the answer has been written out (or the client went
 * away): memory is freed when the bytes have left, not when execution ends.
 */
import type {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLError,
  SelectionSetNode,
  ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { SHED_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { DEFAULT_PAGE_SIZE } from '../domain/pagination.js';
import type { GraphQLContext } from './context.js';
import { graphQLError } from './errors.js';
import { contentFieldOf, isIncluded } from './selection.js';

export interface AdmissionPolicy {
  /** Heavy operations one credential may have running at once. */
  heavyPerCredential: number;
  /** Estimated content bytes the whole process may be producing at once. */
  budgetBytes: number;
}

export type ShedReason =
  | 'credential_concurrency'
  | 'credential_budget'
  | 'process_budget'
  | 'event_loop_delay';

/** Typical size of each content kind of one meeting, as JSON (a transcript dominates). */
const contentBytes: Record<string, number> = {
  transcript: 200_000,
  defaultSummary: 4_000,
  actionItems: 3_000,
  highlights: 3_000,
  crmMatches: 2_000,
};

/** From this estimate on an operation is heavy: it counts against its credential's concurrency. */
const HEAVY_BYTES = 1_000_000;
/** Below this an operation is not worth counting at all. */
const SMALL_BYTES = 64_000;
/**
 * The part of the budget one credential may hold (and always one operation, when it holds nothing
 * else). An answer whose client stops reading holds its estimate until it is cut (SEND_TIMEOUT_MS):
 * without a share, a few such answers of one key refused every other key's large pages meanwhile.
 * Per key and not per client address: behind a proxy or a NAT all clients share an address, while
 * a key is what one tenant is given (and what can be revoked).
 */
const CREDENTIAL_SHARE = 0.5;

type Variables = Record<string, unknown>;

function intArgument(field: FieldNode, name: string, variables: Variables): number | undefined {
  const value: ValueNode | undefined = field.arguments?.find((a) => a.name.value === name)?.value;
  if (!value) return undefined;
  if (value.kind === 'IntValue') return Number(value.value);
  if (value.kind === 'Variable') {
    const given = variables[value.name.value];
    return typeof given === 'number' ? given : undefined;
  }
  return undefined;
}

/** How many items a field multiplies what is below it by: a page of meetings, the ids of `nodes`. */
function itemsOf(field: FieldNode, variables: Variables): number {
  const first = intArgument(field, 'first', variables);
  if (first !== undefined) return Math.max(1, first);
  if (field.name.value === 'meetings') return DEFAULT_PAGE_SIZE;
  if (field.name.value === 'nodes') {
    const ids = field.arguments?.find((a) => a.name.value === 'ids')?.value;
    if (ids?.kind === 'ListValue') return ids.values.length;
    if (ids?.kind === 'Variable') {
      const given = variables[ids.name.value];
      return Array.isArray(given) ? given.length : 1;
    }
  }
  return 1;
}

/** Estimated content bytes of the operation's answer. */
export function estimateContentBytes(document: DocumentNode, variables: Variables): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === 'FragmentDefinition') fragments.set(d.name.value, d);
  const walk = (set: SelectionSetNode | undefined, items: number, seen: Set<string>): number => {
    if (!set) return 0;
    let bytes = 0;
    for (const s of set.selections) {
      if (!isIncluded(s, variables)) continue;
      if (s.kind === 'InlineFragment') bytes += walk(s.selectionSet, items, seen);
      else if (s.kind === 'FragmentSpread') {
        if (seen.has(s.name.value)) continue;
        bytes += walk(fragments.get(s.name.value)?.selectionSet, items, new Set([...seen, s.name.value]));
      } else {
        const own = contentBytes[contentFieldOf(s.name.value)];
        bytes += own !== undefined ? own * items : walk(s.selectionSet, items * itemsOf(s, variables), seen);
      }
    }
    return bytes;
  };
  return document.definitions.reduce(
    (total, d) => (d.kind === 'OperationDefinition' ? total + walk(d.selectionSet, 1, new Set()) : total),
    0,
  );
}

/** What the process and each credential are producing right now. */
class Admissions {
  private inFlightBytes = 0;
  private readonly byCredential = new Map<string, { heavy: number; bytes: number }>();

  constructor(private readonly policy: AdmissionPolicy) {}

  /**
   * Takes the work on, or says why not; the returned function gives it back (once). A loop that
   * runs behind takes no more content on, but some while none is in flight: shedding everything
   * would not make it catch up any sooner (a burst's own parsing may be what delayed it).
   */
  admit(credential: string, bytes: number, loopBehind: boolean): (() => void) | ShedReason {
    if (loopBehind && this.inFlightBytes > 0) return 'event_loop_delay';
    const heavy = bytes >= HEAVY_BYTES;
    const held = this.byCredential.get(credential) ?? { heavy: 0, bytes: 0 };
    if (heavy && held.heavy >= this.policy.heavyPerCredential) return 'credential_concurrency';
    if (held.bytes > 0 && held.bytes + bytes > this.policy.budgetBytes * CREDENTIAL_SHARE)
      return 'credential_budget';
    if (this.inFlightBytes > 0 && this.inFlightBytes + bytes > this.policy.budgetBytes)
      return 'process_budget';
    this.inFlightBytes += bytes;
    held.bytes += bytes;
    if (heavy) held.heavy++;
    this.byCredential.set(credential, held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlightBytes -= bytes;
      held.bytes -= bytes;
      if (heavy) held.heavy--;
      if (held.bytes <= 0) this.byCredential.delete(credential);
    };
  }
}

const refusals: Record<ShedReason, (policy: AdmissionPolicy) => GraphQLError> = {
  credential_concurrency: (policy) =>
    graphQLError(
      'RATE_LIMITED',
      `Too many large requests at once for this key: at most ${policy.heavyPerCredential} may run together (pages with transcripts are large). Retry in ${SHED_RETRY_AFTER_SECONDS} s, once one has finished, or ask for smaller pages.`,
      SHED_RETRY_AFTER_SECONDS,
    ),
  credential_budget: (policy) =>
    graphQLError(
      'RATE_LIMITED',
      `Too much large content at once for this key: its requests may produce about ${Math.round((policy.budgetBytes * CREDENTIAL_SHARE) / 1e6)} MB together (a transcript is about 0.2 MB). Retry in ${SHED_RETRY_AFTER_SECONDS} s, once one has finished and been read, or ask for smaller pages.`,
      SHED_RETRY_AFTER_SECONDS,
    ),
  process_budget: () =>
    graphQLError(
      'OVERLOADED',
      `The service is busy producing other large answers. Retry in ${SHED_RETRY_AFTER_SECONDS} s, or ask for smaller pages or fewer content fields.`,
      SHED_RETRY_AFTER_SECONDS,
    ),
  event_loop_delay: () =>
    graphQLError(
      'OVERLOADED',
      `The service is too busy to take on large answers now. Retry in ${SHED_RETRY_AFTER_SECONDS} s, or ask for smaller pages or fewer content fields.`,
      SHED_RETRY_AFTER_SECONDS,
    ),
};

/** The node response of the request (both doors put it in the server context), to release on close. */
interface WithResponse {
  res?: { closed: boolean; once(event: 'close', listener: () => void): unknown };
}

/** `loopBehind`: whether the event loop runs too far behind to take content on (see overload.ts). */
export function admission(
  policy: AdmissionPolicy,
  onShed: (reason: ShedReason) => void,
  loopBehind: () => boolean,
): Plugin {
  const admissions = new Admissions(policy);
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as GraphQLContext & WithResponse;
      if (!context.viewer) return;
      const bytes = estimateContentBytes(args.document, args.variableValues ?? {});
      if (bytes < SMALL_BYTES) return;
      const outcome = admissions.admit(context.viewer.credentialId.toHexString(), bytes, loopBehind());
      if (typeof outcome === 'function') {
        if (context.res) {
          // A client that already went away will not close again: give the share back now.
          if (context.res.closed) outcome();
          else context.res.once('close', outcome);
          return;
        }
        return { onExecuteDone: outcome };
      }
      onShed(outcome);
      setResultAndStopExecution({ errors: [refusals[outcome](policy)] });
    },
  };
}
