/**
 * The Pothos schema builder, with the plugins every schema file relies on: scope-auth (who may
 * call what), and relay (global ids, node/nodes, connections). Batching lives in
 * the per-request loaders of the context (loaders.ts).
 */
import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type { RawJson } from '../domain/raw-json.js';
import { missingCredentialMessage } from '../domain/viewer.js';
import type { GraphQLContext } from './context.js';
import { graphQLError } from './errors.js';
import { DateTime, Email, Json, Upload } from './scalars.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Email: { Input: string; Output: string };
    JSON: { Input: never; Output: RawJson };
    File: { Input: File; Output: never };
  };
  AuthScopes: { authenticated: boolean; accountAdmin: boolean; ingestionService: boolean };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, RelayPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (context) => ({
      authenticated: context.viewer !== undefined,
      accountAdmin: context.viewer?.user.settingsAccess.level === 'account_admin',
      ingestionService: context.ingestionService,
    }),
    unauthorizedError: (_parent, context) =>
      context.viewer
        ? graphQLError('FORBIDDEN', 'You are not allowed to do this.')
        : graphQLError('UNAUTHENTICATED', missingCredentialMessage),
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: { authScopes: { authenticated: true } },
    nodesQueryOptions: { authScopes: { authenticated: true } },
  },
});

builder.addScalarType('DateTime', DateTime);
builder.addScalarType('Email', Email);
builder.addScalarType('JSON', Json);
builder.addScalarType('File', Upload);
builder.queryType({ authScopes: { authenticated: true } });
builder.mutationType({ authScopes: { authenticated: true } });
