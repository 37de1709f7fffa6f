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
 * The spec orders response keys as the selection set; graphql-js and graphql-jit both do.
 */
import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  type OperationDefinitionNode,
  type Source,
  subscribe,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

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
  /** By operation name ('' for the only operation). */
  compiled: Map<string, Compiled>;
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
}): Plugin {
  const documents = new WeakMap<DocumentNode, PerDocument>();

  function compiledFor(args: ExecutionArgs): CompiledQuery | undefined {
    if (operationOf(args)?.operation !== 'query') return undefined;
    let entry = documents.get(args.document);
    if (!entry) {
      entry = { runs: 0, compiled: new Map() };
      documents.set(args.document, entry);
    }
    if (++entry.runs < COMPILE_AFTER) return undefined;
    const name = args.operationName ?? '';
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
      const compiled = compiledFor(args);
      if (!compiled) {
        setExecuteFn(execute);
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
