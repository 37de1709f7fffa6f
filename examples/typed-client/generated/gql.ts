/* eslint-disable */
import * as types from './graphql.js';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
  '\n  query MeetingsWithSummaries($first: Int!, $after: String, $filter: MeetingFilter) {\n    meetings(first: $first, after: $after, filter: $filter) {\n      edges {\n        node {\n          recordingId\n          title\n          recordingStartTime\n          recordedBy {\n            name\n            email\n          }\n          defaultSummary {\n            templateName\n            markdownFormatted\n          }\n          actionItems {\n            description\n            completed\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n': typeof types.MeetingsWithSummariesDocument;
};
const documents: Documents = {
  '\n  query MeetingsWithSummaries($first: Int!, $after: String, $filter: MeetingFilter) {\n    meetings(first: $first, after: $after, filter: $filter) {\n      edges {\n        node {\n          recordingId\n          title\n          recordingStartTime\n          recordedBy {\n            name\n            email\n          }\n          defaultSummary {\n            templateName\n            markdownFormatted\n          }\n          actionItems {\n            description\n            completed\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n':
    types.MeetingsWithSummariesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query MeetingsWithSummaries($first: Int!, $after: String, $filter: MeetingFilter) {\n    meetings(first: $first, after: $after, filter: $filter) {\n      edges {\n        node {\n          recordingId\n          title\n          recordingStartTime\n          recordedBy {\n            name\n            email\n          }\n          defaultSummary {\n            templateName\n            markdownFormatted\n          }\n          actionItems {\n            description\n            completed\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n',
): typeof import('./graphql.js').MeetingsWithSummariesDocument;

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
