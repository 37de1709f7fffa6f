/**
 * `npm run schema`: prints the Pothos schema to schema.graphql, and the types of the REST
 * documents to rest-compat/operations.generated.ts; a test fails when either is stale.
 */
import { writeFileSync } from 'node:fs';
import { generatedOperationTypes, operationTypesFile } from '../rest-compat/operation-types.js';
import { printedSchema, schemaFile } from '../src/graphql/print.js';

writeFileSync(schemaFile, printedSchema());
console.log(`wrote ${schemaFile}`);
writeFileSync(operationTypesFile, await generatedOperationTypes());
console.log(`wrote ${operationTypesFile}`);
