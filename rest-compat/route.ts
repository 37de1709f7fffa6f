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

/** A named example, as OpenAPI's Example Object: a renderer lists them by summary. */
export interface Example<T = unknown> {
  summary: string;
  description?: string;
  value: T;
}

export type Examples<T = unknown> = Record<string, Example<T>>;

/** The groups of the reference; openapi.ts describes each. */
export type Tag = 'Meetings' | 'Recordings' | 'Teams' | 'Users' | 'Webhooks';

export interface RouteExamples<Q extends z.ZodObject, P extends z.ZodObject> {
  /** A value for every query and path parameter, by key (`teams`, not `teams[]`). */
  parameters: Record<keyof z.input<Q> | keyof z.input<P>, unknown>;
  body?: Examples;
  /**
   * Answers by status, success and errors alike. A status left out shows what every route shares
   * (openapi.ts); 400 and the route's own statuses have their own.
   */
  responses: Record<number, Examples>;
}

/** A POST the service later makes to a URL the request gave (an OpenAPI callback). */
export interface CallbackSpec {
  /** The callback's key, e.g. `transcriptDelivery`. */
  name: string;
  /** A runtime expression for the URL, e.g. `{$request.query.destination_url}`. */
  url: string;
  summary: string;
  description: string;
  /** The body, a schema of schemas.ts. */
  schema: z.ZodType;
  examples: Examples;
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
  /** Its group in the reference (every route of the table has one: the OpenAPI test checks it). */
  tag?: Tag;
  query?: Q;
  pathParams?: P;
  /** A strict object: unknown properties are refused. */
  body?: B;
  /** The body may be left out altogether (no Content-Type, no bytes): it is then `{}`. */
  bodyOptional?: boolean;
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route answers beyond the ones every route may (400, 401, 429, 500). */
  errors?: Record<number, string>;
  /** Examples of the parameters, the body and every answer (every route of the table has them). */
  examples?: RouteExamples<Q, P>;
  callback?: CallbackSpec;
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
