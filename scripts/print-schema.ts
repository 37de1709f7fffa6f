/** Prints the Pothos schema to schema.graphql (`npm run schema`); a test fails when they differ. */
import { writeFileSync } from 'node:fs';
import { printedSchema, schemaFile } from '../src/graphql/print.js';

writeFileSync(schemaFile, printedSchema());
console.log(`wrote ${schemaFile}`);
