/**
 * The typed client's generated code (./generated), made by graphql-codegen's client preset from
 * schema.graphql and the `graphql()` documents in this folder. `npm run examples:codegen` writes
 * it; test/examples/typed-client.test.ts fails when the committed files are stale.
 *
 * The preset runs through @graphql-codegen/core, as the codegen CLI would run it: the CLI's own
 * dependencies (prompts, progress bars, remote loaders) declare Node 22, and this needs none of them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { preset } from '@graphql-codegen/client-preset';
import { codegen } from '@graphql-codegen/core';
import { CodeFileLoader } from '@graphql-tools/code-file-loader';
import { loadDocuments } from '@graphql-tools/load';
import { buildASTSchema, parse } from 'graphql';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const generatedFolder = 'examples/typed-client/generated/';

const config = {
  // Documents are typed strings: the client sends them with fetch, no GraphQL runtime needed.
  documentMode: 'string',
  useTypeImports: true,
  enumsAsTypes: true,
  // DateTime and Email travel as JSON strings.
  scalars: { DateTime: 'string', Email: 'string' },
  // Import paths end in .js, as NodeNext resolution wants.
  emitLegacyCommonJSImports: false,
};

/** Every generated file (path relative to the repository root) and its text, formatted by Biome. */
export async function generatedClientFiles(): Promise<{ path: string; content: string }[]> {
  const schema = parse(readFileSync(`${root}schema.graphql`, 'utf8'));
  const documents = await loadDocuments(
    preset.prepareDocuments!(generatedFolder, ['examples/typed-client/*.ts']),
    { cwd: root, loaders: [new CodeFileLoader({ pluckConfig: { skipIndent: true } })] },
  );
  const outputs = await preset.buildGeneratesSection({
    baseOutputDir: generatedFolder,
    presetConfig: { fragmentMasking: false },
    plugins: [],
    pluginMap: {},
    schema,
    schemaAst: buildASTSchema(schema),
    documents,
    config,
  });
  return Promise.all(
    outputs.map(async (o) => ({ path: o.filename, content: formatted(o.filename, await codegen(o)) })),
  );
}

/** Through the project's pinned Biome, so `biome check` leaves the files alone. */
function formatted(path: string, source: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${path}`], {
    cwd: root,
    input: source,
    encoding: 'utf8',
  });
}
