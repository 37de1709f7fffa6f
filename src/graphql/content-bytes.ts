/**
 * Content answered as bytes on /graphql. A page of transcripts is tens of thousands of objects:
 * executing a selection over them field by field and serialising the result made /graphql 5–7×
 * slower than the REST door, which copies the stored bytes. Here a query over Meeting's content
 * fields (transcript, defaultSummary, actionItems, highlights) runs over an execution schema in
 * which those fields are JSON: each resolves to its selection's JSON, made from the stored content
 * once per content version and selection shape (kept by the content cache) and spliced into the
 * answer as bytes.
 *
 * The answer is the one graphql-js gives over the public schema, byte for byte: the projection
 * walks the selection as graphql-js collects it (aliases, fragments, @skip/@include, __typename,
 * merged fields) through the public schema's own content types, their resolvers and scalars, and
 * the fields keep their nullability, so a failing load is the same error at the same path with
 * the same null. (Stored content always fits its types: it is written from validated input. If it
 * did not, the error would be reported on the content field rather than inside it.) A test
 * compares the two over generated selections.
 *
 * Not for introspection (which would describe the execution schema) nor for in-process callers
 * (the REST and MCP doors read the result's objects). Answers in parts (@defer, and the events of
 * server-sent answers) are spliced part by part; @stream keeps the public schema (it sends a list's
 * items one by one, which a JSON value is not).
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  BREAK,
  type DocumentNode,
  type FieldNode,
  type GraphQLFieldResolver,
  GraphQLNonNull,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLScalarType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  visit,
} from 'graphql';
import { mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { RawJson, serialiseJson, serialiseJsonText } from '../domain/raw-json.js';
import type { GraphQLContext } from './context.js';
import { type ContentField, contentFields, stored } from './schema/meeting-content.js';
import { collectSubfields, isIncluded } from './selection.js';

/** A selection's value of stored content: what graphql-js would complete, as plain data. */
type Projection = (value: unknown, context: GraphQLContext, info: GraphQLResolveInfo) => unknown;

interface Shape {
  /** Names the shape: equal keys, equal projections (GraphQL names never hold `:{},[]!`). */
  key: string;
  project: Projection;
}

class BrokenContent extends Error {}

/** The shape `fieldNodes` select of a value of the public schema's `type`. */
function shapeOf(
  type: GraphQLOutputType,
  fieldNodes: readonly FieldNode[],
  selection: Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>,
): Shape {
  if (isNonNullType(type)) {
    const inner = shapeOf(type.ofType, fieldNodes, selection);
    return {
      key: `${inner.key}!`,
      project: (value, context, info) => {
        if (value === null || value === undefined)
          throw new BrokenContent(`a null where ${type} is expected`);
        return inner.project(value, context, info);
      },
    };
  }
  if (isListType(type)) {
    const item = shapeOf(type.ofType, fieldNodes, selection);
    return {
      key: `[${item.key}]`,
      project: (value, context, info) =>
        value === null || value === undefined
          ? null
          : Array.from(value as Iterable<unknown>, (v) => item.project(v, context, info)),
    };
  }
  if (isLeafType(type))
    return {
      key: type.name,
      project: (value) => (value === null || value === undefined ? null : type.serialize(value)),
    };
  if (!isObjectType(type)) throw new Error(`content of abstract type ${type} cannot be projected`);
  const fields = [...collectSubfields(selection, type, fieldNodes)].map(([responseKey, nodes]) => {
    const name = nodes[0]!.name.value;
    if (name === '__typename')
      return { key: `${responseKey}:__typename`, responseKey, project: () => type.name };
    const field = type.getFields()[name]!;
    const resolve: GraphQLFieldResolver<unknown, GraphQLContext> =
      field.resolve ?? ((parent) => (parent as Record<string, unknown>)[name]);
    const inner = shapeOf(field.type, nodes, selection);
    return {
      key: `${responseKey}:${name}${inner.key}`,
      responseKey,
      project: ((parent, context, info) =>
        inner.project(resolve(parent, {}, context, info), context, info)) as Projection,
    };
  });
  return {
    key: `{${fields.map((f) => f.key).join(',')}}`,
    project: (value, context, info) => {
      if (value === null || value === undefined) return null;
      const answer: Record<string, unknown> = {};
      for (const field of fields) answer[field.responseKey] = field.project(value, context, info);
      return answer;
    },
  };
}

/**
 * Shapes by the field nodes they are made from and the variables they were made with: the meetings
 * of a page share their content fields' nodes and variables, so a page works each shape out once.
 */
class Shapes {
  private readonly made = new WeakMap<readonly FieldNode[], { variables: unknown; shape: Shape }>();

  constructor(private readonly schema: GraphQLSchema) {}

  of(type: GraphQLOutputType, info: GraphQLResolveInfo): Shape {
    const held = this.made.get(info.fieldNodes);
    if (held?.variables === info.variableValues) return held.shape;
    // graphql-jit gives every node of the response key, graphql-js the ones included.
    const nodes = info.fieldNodes.filter((node) => isIncluded(node, info.variableValues));
    // Fragments' type conditions name the public schema's types, which the projection walks.
    const shape = shapeOf(type, nodes, {
      schema: this.schema,
      fragments: info.fragments,
      variableValues: info.variableValues,
    });
    this.made.set(info.fieldNodes, { variables: info.variableValues, shape });
    return shape;
  }
}

/** Content types' fields are read, never called with arguments: checked when the schema is made. */
function assertProjectable(type: GraphQLOutputType, seen = new Set<string>()): void {
  const named = getNamedType(type);
  if (!isObjectType(named) || seen.has(named.name)) return;
  seen.add(named.name);
  for (const field of Object.values(named.getFields())) {
    if (field.args.length > 0)
      throw new Error(`${named.name}.${field.name} takes arguments: content-bytes.ts cannot project it`);
    assertProjectable(field.type, seen);
  }
}

/** The execution schema: `schema` with Meeting's content fields answered as bytes. */
export function contentAsBytes(schema: GraphQLSchema): GraphQLSchema {
  const meeting = schema.getType('Meeting');
  const json = schema.getType('JSON') as GraphQLScalarType;
  if (!isObjectType(meeting)) throw new Error('the schema has no Meeting type');
  const publicFields = meeting.getFields();
  const shapes = new Shapes(schema);
  for (const name of Object.keys(contentFields)) assertProjectable(publicFields[name]!.type);
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, fieldName, typeName) => {
      if (typeName !== 'Meeting' || !(fieldName in contentFields)) return config;
      const { kind, none } = contentFields[fieldName as ContentField];
      const publicType = publicFields[fieldName]!.type;
      const resolve: GraphQLFieldResolver<{ recordingId: number }, GraphQLContext> = async (
        meeting,
        _args,
        context,
        info,
      ) => {
        const json = await stored(kind, meeting.recordingId, context);
        const shape = shapes.of(publicType, info);
        const make = () => RawJson.of(shape.project(json ? json.parse() : none, context, info));
        return json ? context.loaders.shaped(json, shape.key, make) : make();
      };
      return { ...config, type: isNonNullType(config.type) ? new GraphQLNonNull(json) : json, resolve };
    },
  });
}

/** Whether `document` may run over the execution schema: it reads content, and no introspection. */
export function answersContentAsBytes(document: DocumentNode): boolean {
  let content = false;
  let introspects = false;
  visit(document, {
    Field(node) {
      const name = node.name.value;
      if (name === '__schema' || name === '__type') {
        introspects = true;
        return BREAK;
      }
      if (name in contentFields) content = true;
      return undefined;
    },
  });
  return content && !introspects;
}

/**
 * A result as the bytes of its answer, each RawJson inside it copied in, for Yoga's `stringify`.
 * Yoga types that as returning a string but hands what it returns to `new Response()`: bytes spare
 * decoding a multi-megabyte answer into a string and encoding it again (~5 ms a page of
 * transcripts). The equality test (test/graphql/content-bytes.test.ts) reads the bytes.
 */
export const answerBytes = serialiseJson as unknown as (result: unknown) => string;

/**
 * Answers with the stored bytes each RawJson holds copied in, not its value parsed and written
 * again: Yoga serialises a result with its `stringify` when it has one (exposeHttpStatus gives
 * results with errors theirs, which splices too).
 */
export function splicedAnswers(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) return;
      if (Symbol.asyncIterator in result) {
        // Each part of an incremental or streamed answer (Yoga encodes the text its stringify returns).
        setResult(
          mapAsyncIterator(result, (part) =>
            part.stringify ? part : { ...part, stringify: serialiseJsonText },
          ),
        );
        return;
      }
      if (!result.stringify) setResult({ ...result, stringify: answerBytes });
    },
  };
}
