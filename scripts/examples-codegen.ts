/** `npm run examples:codegen`: regenerates the typed client's code (examples/typed-client/generated). */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatedClientFiles, generatedFolder } from '../examples/typed-client/codegen.js';

const files = await generatedClientFiles();
rmSync(generatedFolder, { recursive: true, force: true });
for (const { path, content } of files) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  console.log(`wrote ${path}`);
}
