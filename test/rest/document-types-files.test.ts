import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  fragmentTypesFile,
  generatedFragmentTypes,
  generatedOperationTypes,
  operationTypesFile,
} from '../../scripts/document-types.js';

describe('the generated types of the documents (run `npm run schema` after changing a document or the schema)', () => {
  it('src/representation/fragments.generated.ts is what graphql-codegen generates from the shared fragments', async () => {
    expect(readFileSync(fragmentTypesFile, 'utf8'), 'stale: run `npm run schema`').toBe(
      await generatedFragmentTypes(),
    );
  });

  it('rest-compat/operations.generated.ts is what it generates from the REST documents, importing the fragments’ types', async () => {
    const generated = await generatedOperationTypes();
    expect(readFileSync(operationTypesFile, 'utf8'), 'stale: run `npm run schema`').toBe(generated);
    // Nothing declared twice: a type of the fragments' file is only imported here.
    const declared = (code: string) => [...code.matchAll(/^export type (\w+)/gm)].map((m) => m[1]);
    const shared = new Set(declared(readFileSync(fragmentTypesFile, 'utf8')));
    expect(declared(generated).filter((name) => shared.has(name))).toEqual([]);
  });
});
