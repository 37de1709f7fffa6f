// Starts a TypeScript module on a worker thread when running from the sources (tsx, vitest): a
// worker does not inherit its parent's module loader, so it registers tsx's before importing the
// module named by its last argument. Compiled code (dist/) starts its .js module directly.
import { register } from 'tsx/esm/api';

register();
await import(process.argv.at(-1));
