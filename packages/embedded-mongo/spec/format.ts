/**
 * The parts of MongoDB's unified test format (source/unified-test-format in mongodb/specifications)
 * that the CRUD, index-management and collection-management suites use, as this runner reads them.
 */
import type { Document } from 'mongodb';

export interface UnifiedFile {
  description: string;
  schemaVersion: string;
  runOnRequirements?: RunOnRequirement[];
  createEntities?: EntityDescription[];
  initialData?: CollectionData[];
  tests: UnifiedTest[];
}

export interface UnifiedTest {
  description: string;
  runOnRequirements?: RunOnRequirement[];
  skipReason?: string;
  operations: Operation[];
  expectEvents?: ExpectedEventsForClient[];
  outcome?: CollectionData[];
}

export interface RunOnRequirement {
  minServerVersion?: string;
  maxServerVersion?: string;
  topologies?: string[];
  serverless?: 'require' | 'forbid' | 'allow';
  serverParameters?: Document;
  auth?: boolean;
  authMechanism?: string;
  csfle?: boolean | Document;
}

/** Exactly one key, the entity's type (`client`, `database`, ...), mapping to its options. */
export type EntityDescription = Record<string, Document & { id: string }>;

export interface CollectionData {
  collectionName: string;
  databaseName: string;
  createOptions?: Document;
  documents: Document[];
}

export interface Operation {
  name: string;
  /** An entity's id, or `testRunner` for the runner's own assertions. */
  object: string;
  arguments?: Document;
  expectResult?: unknown;
  expectError?: ExpectedError;
  saveResultAsEntity?: string;
  ignoreResultAndError?: boolean;
}

export interface ExpectedError {
  isError?: true;
  isClientError?: boolean;
  errorContains?: string;
  errorCode?: number;
  errorCodeName?: string;
  errorLabelsContain?: string[];
  errorLabelsOmit?: string[];
  errorResponse?: Document;
  /** Client bulk write only: index → expected write error. */
  writeErrors?: Record<string, Document>;
  writeConcernErrors?: Document[];
  /** The partial result a bulk write error carries. */
  expectResult?: unknown;
}

export interface ExpectedEventsForClient {
  client: string;
  eventType?: 'command' | 'cmap' | 'sdam';
  events: Document[];
  ignoreExtraEvents?: boolean;
}
