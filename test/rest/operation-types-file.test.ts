import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedOperationTypes, operationTypesFile } from '../../rest-compat/operation-types.js';

describe('rest-compat/operations.generated.ts', () => {
  it('is what graphql-codegen generates from the documents and the schema (run `npm run schema` after changing either)', async () => {
    expect(readFileSync(operationTypesFile, 'utf8'), 'stale: run `npm run schema`').toBe(
      await generatedOperationTypes(),
    );
  });
});
