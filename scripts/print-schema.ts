/**
 * `npm run schema`: prints the Pothos schema to schema.graphql, and the types of the documents
 * answering in the public shape (src/representation/fragments.generated.ts,
 * rest-compat/operations.generated.ts); a test fails when any is stale.
 */
import { writeFileSync } from 'node:fs';
import { printedSchema, schemaFile } from '../src/graphql/print.js';
import {
  fragmentTypesFile,
  generatedFragmentTypes,
  generatedOperationTypes,
  operationTypesFile,
} from './document-types.js';

writeFileSync(schemaFile, printedSchema());
console.log(`wrote ${schemaFile}`);
writeFileSync(fragmentTypesFile, await generatedFragmentTypes());
console.log(`wrote ${fragmentTypesFile}`);
writeFileSync(operationTypesFile, await generatedOperationTypes());
console.log(`wrote ${operationTypesFile}`);
