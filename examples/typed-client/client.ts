/**
 * A typed GraphQL client over plain fetch: the documents written with `graphql()` (from the
 * generated ./generated/gql.ts) carry their result and variable types, so `request` returns the
 * exact shape the document selects and refuses wrong variables at compile time.
 */
import type { TypedDocumentString } from './generated/graphql.js';

export interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; http?: { status?: number } };
}

/** A GraphQL error answer: the first error's message, with every error and the HTTP status. */
export class GraphQLRequestError extends Error {
  override name = 'GraphQLRequestError';
  constructor(
    readonly status: number,
    readonly errors: GraphQLErrorBody[],
  ) {
    super(`${errors[0]?.message ?? 'no data'} (HTTP ${status}, ${errors[0]?.extensions?.code ?? 'no code'})`);
  }
}

export interface Client {
  request<Result, Variables>(
    document: TypedDocumentString<Result, Variables>,
    // Operations without variables may omit them.
    ...[variables]: Variables extends Record<string, never> ? [] | [Variables] : [Variables]
  ): Promise<Result>;
}

/** `baseUrl` like http://127.0.0.1:4000; `apiKey` sent as X-Api-Key. */
export function createClient(baseUrl: string, apiKey: string): Client {
  return {
    async request(document, variables?) {
      const res = await fetch(new URL('/graphql', baseUrl), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          'x-api-key': apiKey,
        },
        body: JSON.stringify({ query: document.toString(), variables }),
      });
      const body = (await res.json()) as { data?: unknown; errors?: GraphQLErrorBody[] };
      if (body.errors?.length || !body.data) throw new GraphQLRequestError(res.status, body.errors ?? []);
      return body.data as never;
    },
  };
}
