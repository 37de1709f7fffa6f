/**
 * The typed client's generated code (./generated), made by graphql-codegen's client preset from
 * schema.graphql and the `graphql()` documents in this folder. `npm run examples:codegen` writes
 * it; test/examples/typed-client.test.ts fails when the committed files are stale.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CodegenConfig, generate } from '@graphql-codegen/cli';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const generatedFolder = 'examples/typed-client/generated/';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['examples/typed-client/*.ts'],
  // import paths end in .js, as NodeNext resolution wants
  emitLegacyCommonJSImports: false,
  silent: true,
  generates: {
    [generatedFolder]: {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        // Documents are typed strings: the client sends them with fetch, no GraphQL runtime needed.
        documentMode: 'string',
        useTypeImports: true,
        enumsAsTypes: true,
        // DateTime and Email travel as JSON strings.
        scalars: { DateTime: 'string', Email: 'string' },
      },
    },
  },
};

/** Every generated file (path relative to the repository root) and its text, formatted by Biome. */
export async function generatedClientFiles(): Promise<{ path: string; content: string }[]> {
  const outputs: { filename: string; content: string }[] = await generate({ ...config, cwd: root }, false);
  return outputs.map((o) => {
    const path = relative(root, join(root, o.filename));
    return { path, content: formatted(path, o.content) };
  });
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
