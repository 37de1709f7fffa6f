/**
 * `npm run docs`: writes the configuration reference generated from src/config.ts into
 * docs/operators/configuration.md, between its `<!-- configuration -->` and `<!-- /configuration -->` markers; a test fails when
 * what is there is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { configurationReference } from '../src/config.js';

const file = 'docs/operators/configuration.md';
const text = readFileSync(file, 'utf8');
const start = text.indexOf('<!-- configuration -->');
const end = text.indexOf('<!-- /configuration -->');
if (start < 0 || end < start)
  throw new Error(`${file} has no <!-- configuration --> ... <!-- /configuration --> block`);
const head = text.slice(0, start + '<!-- configuration -->'.length);
writeFileSync(file, `${head}\n${configurationReference()}\n${text.slice(end)}`);
console.log(`wrote the configuration reference into ${file}`);
