/**
 * What a REST route declares, once: its method and path, its parameters and body (zod), its
 * responses (zod), the GraphQL operation it runs and the two translations around it. Validation,
 * the OpenAPI document and the dispatch all read this declaration.
 */
import type * as z from 'zod';
import { type ParamSpec, paramSpecs } from './params.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface RestInput<Q, P, B> {
  query: Q;
  path: P;
  body: B;
}

/** A GraphQL operation to run: a document of rest-compat/operations/ by file name, and its variables. */
export interface GraphQLCall {
  operation: string;
  variables: Record<string, unknown>;
}

export interface RestResult {
  status: number;
  /** Left out for 204. */
  body?: unknown;
}

export interface ResponseSpec {
  description: string;
  /** A schema of schemas.ts (registered as a component); none for an empty body. */
  schema?: z.ZodType;
}

type Empty = z.ZodObject<Record<string, never>>;

export interface RouteSpec<Q extends z.ZodObject, P extends z.ZodObject, B extends z.ZodObject, D> {
  operationId: string;
  method: Method;
  /** Template below /external/v1, e.g. `/recordings/{recording_id}/summary`. */
  path: string;
  summary: string;
  description?: string;
  query?: Q;
  pathParams?: P;
  /** A strict object: unknown properties are refused. */
  body?: B;
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route answers beyond the ones every route may (400, 401, 429, 500). */
  errors?: Record<number, string>;
  /** Every document `graphql` may name, checked when the door is made. */
  operations: readonly string[];
  graphql(input: RestInput<z.output<Q>, z.output<P>, z.output<B>>): GraphQLCall;
  /** From the `data` of a GraphQL result without errors to the REST answer. */
  respond(data: D, input: RestInput<z.output<Q>, z.output<P>, z.output<B>>): RestResult;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of every input and data type.
export type AnyRouteSpec = RouteSpec<any, any, any, any>;

export interface Route extends AnyRouteSpec {
  querySpecs: ParamSpec[];
  pathSpecs: ParamSpec[];
  /** The path template as a regular expression, one group per path parameter. */
  pattern: RegExp;
  pathNames: string[];
}

export function defineRoute<
  D,
  Q extends z.ZodObject = Empty,
  P extends z.ZodObject = Empty,
  B extends z.ZodObject = Empty,
>(spec: RouteSpec<Q, P, B, D>): Route {
  const pathNames: string[] = [];
  const source = spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    pathNames.push(name);
    return '([^/]+)';
  });
  const pathSpecs = paramSpecs(spec.pathParams, 'path');
  const declared = pathSpecs.map((p) => p.key).sort();
  if (JSON.stringify(declared) !== JSON.stringify([...pathNames].sort()))
    throw new Error(`${spec.operationId}: the path parameters do not match ${spec.path}`);
  return {
    ...(spec as AnyRouteSpec),
    querySpecs: paramSpecs(spec.query, 'query'),
    pathSpecs,
    pattern: new RegExp(`^${source}$`),
    pathNames,
  };
}
