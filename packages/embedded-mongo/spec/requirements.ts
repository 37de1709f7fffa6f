/**
 * When a file or test may run: its schema version, its runOnRequirements evaluated for a standalone
 * server of a given version, the operations a standalone cannot serve at all, and the few tests
 * the Node driver itself fails.
 */
import type { RunOnRequirement, UnifiedTest } from './format.js';

/**
 * The newest schema version among the three suites' files. The runner implements what those
 * files use of it, not every feature the format has gained up to this version.
 */
const SUPPORTED_SCHEMA_VERSION = '1.21';

/** Compares `major.minor.patch` versions numerically; a suffix such as `-rc1` is ignored. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    (version.split('-')[0] ?? '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Why a file of this schema version cannot be run, if it cannot. */
export function unsupportedSchema(schemaVersion: string): string | undefined {
  const [major] = schemaVersion.split('.');
  const [supportedMajor] = SUPPORTED_SCHEMA_VERSION.split('.');
  const compatible =
    major === supportedMajor && compareVersions(schemaVersion, SUPPORTED_SCHEMA_VERSION) <= 0;
  return compatible ? undefined : `schemaVersion ${schemaVersion} is newer than ${SUPPORTED_SCHEMA_VERSION}`;
}

/** Why none of the requirements holds; undefined when one does or there are none. */
export function unmetRequirements(
  requirements: RunOnRequirement[] | undefined,
  serverVersion: string,
): string | undefined {
  if (!requirements?.length) return undefined;
  const reasons = requirements.map((requirement) => unmetRequirement(requirement, serverVersion));
  return reasons.includes(undefined) ? undefined : [...new Set(reasons)].join(', or ');
}

function unmetRequirement(requirement: RunOnRequirement, serverVersion: string): string | undefined {
  const { minServerVersion, maxServerVersion, topologies } = requirement;
  if (minServerVersion && compareVersions(serverVersion, minServerVersion) < 0) {
    return `needs server >= ${minServerVersion}`;
  }
  if (maxServerVersion && compareVersions(serverVersion, maxServerVersion) > 0) {
    return `needs server <= ${maxServerVersion}`;
  }
  // The server under test is always taken as a standalone ("single").
  if (topologies && !topologies.includes('single')) return `needs topology ${topologies.join('|')}`;
  if (requirement.serverless === 'require') return 'needs Atlas Serverless';
  if (requirement.auth === true || requirement.authMechanism) return 'needs authentication';
  if (requirement.csfle) return 'needs client-side encryption';
  if (requirement.serverParameters) return 'needs server parameters, which this runner does not check';
  return undefined;
}

/** Operations whose tests a standalone server cannot run, and why. */
const STANDALONE_CANNOT: Record<string, string> = {
  failPoint: 'fail points need a real mongod with test commands enabled',
  targetedFailPoint: 'fail points need a real mongod with test commands enabled',
  startTransaction: 'transactions need a replica set',
  withTransaction: 'transactions need a replica set',
  createChangeStream: 'change streams need a replica set',
  createSearchIndex: 'search indexes need Atlas',
  createSearchIndexes: 'search indexes need Atlas',
  dropSearchIndex: 'search indexes need Atlas',
  listSearchIndexes: 'search indexes need Atlas',
  updateSearchIndex: 'search indexes need Atlas',
};

/** Why a standalone cannot run this test, if one of its operations needs more. */
export function standaloneLimitation(test: UnifiedTest): string | undefined {
  const blocked = test.operations.find((operation) => Object.hasOwn(STANDALONE_CANNOT, operation.name));
  return blocked && `${blocked.name}: ${STANDALONE_CANNOT[blocked.name]}`;
}

const OMITS_BYPASS_FALSE = 'the Node driver omits bypassDocumentValidation: false here';
const REPLACES_NULL_ID = 'the Node driver replaces a null _id by an ObjectId';
const SETS_PARTIAL_RESULT = 'the Node driver sets partialResult even when nothing was written';

/**
 * Tests whose expectations the Node driver itself does not meet, whatever the server (the command
 * it sends, or the document it inserts, differs from the spec's): failing them would say nothing
 * about the engine.
 */
const NODE_DRIVER_DEVIATIONS = new Map(
  Object.entries({
    'Aggregate with $out passes bypassDocumentValidation: false': OMITS_BYPASS_FALSE,
    'BulkWrite passes bypassDocumentValidation: false': OMITS_BYPASS_FALSE,
    'FindOneAndReplace passes bypassDocumentValidation: false': OMITS_BYPASS_FALSE,
    'FindOneAndUpdate passes bypassDocumentValidation: false': OMITS_BYPASS_FALSE,
    'InsertMany passes bypassDocumentValidation: false': OMITS_BYPASS_FALSE,
    'inserting _id with type null via insertOne': REPLACES_NULL_ID,
    'inserting _id with type null via insertMany': REPLACES_NULL_ID,
    'inserting _id with type null via bulkWrite': REPLACES_NULL_ID,
    'inserting _id with type null via clientBulkWrite': REPLACES_NULL_ID,
    'partialResult is unset when first operation fails during an ordered bulk write (verbose)':
      SETS_PARTIAL_RESULT,
    'partialResult is unset when first operation fails during an ordered bulk write (summary)':
      SETS_PARTIAL_RESULT,
    'partialResult is unset when all operations fail during an unordered bulk write': SETS_PARTIAL_RESULT,
  }),
);

export function nodeDriverDeviation(test: UnifiedTest): string | undefined {
  return NODE_DRIVER_DEVIATIONS.get(test.description);
}
