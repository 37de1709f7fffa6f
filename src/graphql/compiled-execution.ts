/**
 * Chooses the executor of every operation. Hot queries run in graphql-jit, which compiles a
 * document into a function once and then runs it several times faster than graphql-js interprets
 * it (large pages of transcripts spent most of their time in the interpreter). Both doors benefit:
 * REST runs a handful of fixed documents.
 *
 * A document is compiled on its second execution, so one-off queries (and anyone sending endless
 * distinct documents) cost no compilation. Compiled functions live as long as Yoga's parsed
 * document does (a WeakMap over its LRU cache). Mutations, subscriptions and whatever graphql-jit
 * cannot compile run in graphql-js's execute and subscribe.
 *
 * Not in Yoga's default executor (@graphql-tools/executor): it fills each object's response in the
 * order its fields resolve, so a field with a synchronous resolver came out before an earlier
 * asynchronous one on a document's first run (`recordedBy title` answered `title, recordedBy`).
 * The spec orders response keys as the selection set; graphql-js and graphql-jit both do, except
 * that graphql-jit places a key where it first occurs even when @skip/@include leaves that
 * occurrence out (`a @include(if: false) b a` answers `a, b`, graphql-js `b, a`): documents that
 * repeat a key under such a condition stay interpreted.
 *
 * A document with @defer or @stream runs in @graphql-tools/executor (Yoga's own), the executor that
 * delivers incrementally; graphql-js 16 and graphql-jit would answer it in one piece. Its content
 * is answered from bytes too, so that the deferred parts cost little while the first is written.
 *
 * Given an execution schema that answers content as bytes (content-bytes.ts), the HTTP door's
 * queries that read content run over it instead of the public one.
 */

import { normalizedExecutor } from '@graphql-tools/executor';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type Source,
  subscribe,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { answersContentAsBytes } from './content-bytes.js';
import type { InProcessCaller } from './in-process-result.js';

const COMPILE_AFTER = 2;

/**
 * The span of a compiled execution. graphql-js's executions get theirs from the GraphQL
 * instrumentation (src/telemetry.ts), which cannot see graphql-jit: without this a hot query would
 * have no operation span. Named as the instrumentation names them; a no-op unless tracing is on.
 */
const tracer = trace.getTracer('meetings-gateway/graphql');

type Compiled = CompiledQuery | 'interpreted';

interface PerDocument {
  runs: number;
  /** By schema and operation name ('' for the only operation). */
  compiled: Map<string, Compiled>;
  answersContentAsBytes: boolean;
  repeatsConditionalKeys: boolean;
  /** The incremental-delivery directives it uses: @defer, @stream. */
  incremental: Set<string>;
}

function incrementalDirectives(document: DocumentNode): Set<string> {
  const found = new Set<string>();
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') found.add(node.name.value);
    },
  });
  return found;
}

const conditional = (selection: SelectionNode) =>
  selection.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include') ?? false;

/**
 * Whether a selection set of `document` (its fragments spread in, whatever their type conditions)
 * has a response key twice, one of them under @skip/@include: the key order graphql-jit gets wrong.
 */
function repeatsConditionalKeys(document: DocumentNode): boolean {
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  /** `sets`: the selection sets merged under one response key (or an operation's). */
  const repeats = (sets: readonly SelectionSetNode[]): boolean => {
    const keys = new Map<string, { conditional: boolean; below: SelectionSetNode[] }>();
    let repeated = false;
    const visited = new Set<string>();
    const collect = (set: SelectionSetNode, underCondition: boolean) => {
      for (const selection of set.selections) {
        const condition = underCondition || conditional(selection);
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const seen = keys.get(key);
          if (seen && (seen.conditional || condition)) repeated = true;
          keys.set(key, {
            conditional: (seen?.conditional ?? false) || condition,
            below: [...(seen?.below ?? []), ...(selection.selectionSet ? [selection.selectionSet] : [])],
          });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, condition);
        else if (!visited.has(selection.name.value)) {
          visited.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) collect(fragment.selectionSet, condition);
        }
      }
    };
    for (const set of sets) collect(set, false);
    return repeated || [...keys.values()].some((k) => k.below.length > 0 && repeats(k.below));
  };
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && repeats([d.selectionSet]));
}

function operationOf(args: ExecutionArgs): OperationDefinitionNode | undefined {
  const operations = args.document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  );
  return args.operationName ? operations.find((o) => o.name?.value === args.operationName) : operations[0];
}

/**
 * graphql-jit's errors carry locations but neither nodes nor source positions, which Yoga rebuilds
 * errors from (so locations would vanish): give them the document's source and positions, as
 * graphql-js's errors have.
 */
function withPositions(error: GraphQLError, source: Source | undefined): GraphQLError {
  if (!source || error.nodes || !error.locations?.length) return error;
  const lineStarts = [0];
  for (let i = 0; i < source.body.length; i++) if (source.body[i] === '\n') lineStarts.push(i + 1);
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

function withPositionsIn(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((e) => withPositions(e, source)) };
}

export function compiledExecution(events: {
  onCompiled: (operationName: string | undefined) => void;
  onCompileError: (errors: unknown) => void;
  /** The execution schema answering content as bytes, for requests whose answer Yoga serialises. */
  contentAsBytes?: GraphQLSchema;
}): Plugin {
  const documents = new WeakMap<DocumentNode, PerDocument>();

  function entryOf(document: DocumentNode): PerDocument {
    let entry = documents.get(document);
    if (!entry) {
      entry = {
        runs: 0,
        compiled: new Map(),
        answersContentAsBytes: answersContentAsBytes(document),
        repeatsConditionalKeys: repeatsConditionalKeys(document),
        incremental: incrementalDirectives(document),
      };
      documents.set(document, entry);
    }
    return entry;
  }

  /** The schema `args` run over: the public one, or the one answering content as bytes. */
  function schemaFor(args: ExecutionArgs): GraphQLSchema {
    const bytes = events.contentAsBytes;
    if (!bytes || operationOf(args)?.operation !== 'query') return args.schema;
    if ((args.contextValue as InProcessCaller).handOver) return args.schema;
    const entry = entryOf(args.document);
    // @stream sends a list's items one by one: content as bytes would be one value.
    return entry.answersContentAsBytes && !entry.incremental.has('stream') ? bytes : args.schema;
  }

  function compiledFor(args: ExecutionArgs): CompiledQuery | undefined {
    if (operationOf(args)?.operation !== 'query') return undefined;
    const entry = entryOf(args.document);
    if (++entry.runs < COMPILE_AFTER || entry.repeatsConditionalKeys) return undefined;
    const name = `${args.schema === events.contentAsBytes ? 'bytes' : 'public'}:${args.operationName ?? ''}`;
    let compiled = entry.compiled.get(name);
    if (!compiled) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      if (isCompiledQuery(result)) {
        compiled = result;
        events.onCompiled(operationOf(args)?.name?.value);
      } else {
        events.onCompileError(result.errors);
        compiled = 'interpreted';
      }
      entry.compiled.set(name, compiled);
    }
    return compiled === 'interpreted' ? undefined : compiled;
  }

  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(subscribe);
    },
    onExecute({ args, setExecuteFn }) {
      const schema = schemaFor(args);
      if (entryOf(args.document).incremental.size > 0) {
        setExecuteFn((run) => normalizedExecutor({ ...run, schema }));
        return;
      }
      const compiled = compiledFor({ ...args, schema });
      if (!compiled) {
        setExecuteFn((run) => execute({ ...run, schema }));
        return;
      }
      const source = args.document.loc?.source;
      const name = operationOf(args)?.name?.value;
      setExecuteFn((run) =>
        tracer.startActiveSpan(
          name ? `query ${name}` : 'query',
          {
            attributes: {
              'graphql.operation.type': 'query',
              ...(name ? { 'graphql.operation.name': name } : {}),
              'graphql.jit': true,
            },
          },
          async (span) => {
            try {
              const result = await (compiled.query(
                run.rootValue,
                run.contextValue,
                run.variableValues ?? {},
              ) as ExecutionResult | Promise<ExecutionResult>);
              if (result.errors?.length) span.setStatus({ code: SpanStatusCode.ERROR });
              return withPositionsIn(result, source);
            } catch (error) {
              span.setStatus({ code: SpanStatusCode.ERROR });
              throw error;
            } finally {
              span.end();
            }
          },
        ),
      );
    },
  };
}
