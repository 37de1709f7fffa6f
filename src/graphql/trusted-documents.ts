/**
 * Trusted documents: the operations a frontend build declares (a manifest, `{sha256: document}`,
 * as graphql-codegen's client preset writes it), sent by id in Apollo's persisted-query format
 * (`extensions.persistedQuery.sha256Hash`) instead of as text. The manifest is checked at start
 * (each id the SHA-256 of its document, each document valid), so a broken one never serves. With
 * `only`, /graphql runs nothing else; the REST and MCP doors' own documents, run in-process, are
 * the service's and always run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { type DocumentNode, GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { InProcessCaller } from './in-process-result.js';

export interface TrustedDocuments {
  /** By id (hex SHA-256 of the document's text), parsed. */
  documents: ReadonlyMap<string, DocumentNode>;
  /** Refuse every other operation sent to /graphql. */
  only: boolean;
}

export class InvalidManifestError extends Error {
  override name = 'InvalidManifestError';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Reads and checks the manifest at `path`; every problem found, or the documents. */
export function loadTrustedDocuments(path: string, schema: GraphQLSchema, only: boolean): TrustedDocuments {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidManifestError(`GRAPHQL_TRUSTED_DOCUMENTS (${path}): ${(error as Error).message}`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw new InvalidManifestError(
      `GRAPHQL_TRUSTED_DOCUMENTS (${path}) must be a JSON object {"<sha256>": "<document>"}`,
    );
  const problems: string[] = [];
  const documents = new Map<string, DocumentNode>();
  for (const [id, text] of Object.entries(manifest)) {
    if (typeof text !== 'string') problems.push(`${id}: not a document (a string)`);
    else if (sha256(text) !== id) problems.push(`${id}: not the SHA-256 of its document (${sha256(text)})`);
    else
      try {
        const document = parse(text);
        const errors = validate(schema, document);
        if (errors.length > 0) problems.push(`${id}: ${errors.map((e) => e.message).join('; ')}`);
        else documents.set(id, document);
      } catch (error) {
        problems.push(`${id}: ${(error as Error).message}`);
      }
  }
  if (problems.length > 0)
    throw new InvalidManifestError(`GRAPHQL_TRUSTED_DOCUMENTS (${path}):\n  ${problems.join('\n  ')}`);
  return { documents, only };
}

const refusal = (message: string, code: string) =>
  new GraphQLError(message, { extensions: { code, http: { status: 400 } } });

/** The id a request sends its operation by, if any (Apollo's persisted-query extension). */
function persistedId(extensions: Record<string, unknown> | undefined): string | undefined {
  const persisted = extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string'
    ? persisted.sha256Hash
    : undefined;
}

export function trustedDocuments({
  documents,
  only,
}: TrustedDocuments): Plugin<Record<string, unknown>, InProcessCaller>[] {
  return [
    {
      // Text sent with an id must be the document the id names; with `only`, text is refused
      // unless a door of the service runs it in-process.
      onParams({ params, context }) {
        if (!params.query) return;
        const id = persistedId(params.extensions);
        if (id !== undefined && sha256(params.query) !== id)
          throw refusal(
            'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query sent with it.',
            'PERSISTED_QUERY_HASH_MISMATCH',
          );
        if (only && !(context as InProcessCaller).handOver)
          throw refusal(
            'This server runs only its trusted documents (GRAPHQL_TRUSTED_ONLY): send the operation’s id as extensions.persistedQuery.sha256Hash ({"version": 1, "sha256Hash": "..."}) instead of its text.',
            'PERSISTED_QUERY_ONLY',
          );
      },
    },
    usePersistedOperations({
      allowArbitraryOperations: true, // decided above
      getPersistedOperation: (id) => documents.get(id) ?? null,
      customErrors: {
        notFound: {
          message:
            'No trusted document has this id: the manifest this server was started with (GRAPHQL_TRUSTED_DOCUMENTS) does not list it. Rebuild the frontend’s manifest and deploy it with the server.',
          extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } },
        },
        keyNotFound: {
          message:
            'No operation was sent: POST {"query": "..."} or a trusted document’s id as {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "..."}}}.',
          extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } },
        },
      },
    }),
  ];
}
