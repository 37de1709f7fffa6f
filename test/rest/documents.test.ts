/** The REST documents' shared fragments: each document gets exactly the ones it spreads, or start-up fails. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadOperations } from '../../rest-compat/documents.js';
import { schema } from '../../src/graphql/schema/index.js';
import { InvalidDocumentError, loadSharedFragments } from '../../src/representation/fragments.js';

/** The operations of a folder holding `files` (name to text), with `fragments` as the shared fragments. */
function operationsOf(fragments: string, files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'rest-ops-'));
  const fragmentsFile = join(root, 'fragments.graphql');
  writeFileSync(fragmentsFile, fragments);
  const folder = join(root, 'operations');
  mkdirSync(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return loadOperations(
    schema,
    pathToFileURL(`${folder}/`),
    loadSharedFragments(schema, pathToFileURL(fragmentsFile)),
  );
}

const fragmentNames = (source: string) =>
  parse(source).definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [d.name.value] : []));

describe('shared fragments', () => {
  it('appends to each document the fragments it spreads, transitively, and no others', () => {
    const operations = loadOperations(schema);
    expect(operations.has('fragments')).toBe(false);
    expect(fragmentNames(operations.get('ListMeetings')!.source)).toEqual(['RestMeeting']);
    expect(fragmentNames(operations.get('RecordingTranscript')!.source)).toEqual([]);
    const teams = operationsOf(
      'fragment TeamName on Team { name ...TeamCreated } fragment TeamCreated on Team { createdAt } fragment Unused on Team { name }',
      { 'Teams.graphql': 'query Teams { teams { edges { node { ...TeamName } } } }' },
    );
    expect(fragmentNames(teams.get('Teams')!.source).sort()).toEqual(['TeamCreated', 'TeamName']);
  });

  it('start-up fails, naming the document, on a spread of a fragment defined nowhere', () => {
    const load = () =>
      operationsOf('fragment TeamName on Team { name }', {
        'Teams.graphql': 'query Teams { teams { edges { node { ...TeamNme } } } }',
      });
    expect(load).toThrow(InvalidDocumentError);
    expect(load).toThrow(
      'rest-compat/operations/Teams.graphql spreads ...TeamNme, which neither it nor the shared fragments define.',
    );
  });

  it('start-up fails on a document redefining a shared fragment, and on a shared fragment that does not fit the schema', () => {
    expect(() =>
      operationsOf('fragment TeamName on Team { name }', {
        'Teams.graphql':
          'query Teams { teams { edges { node { ...TeamName } } } }\nfragment TeamName on Team { createdAt }',
      }),
    ).toThrow(/Teams\.graphql defines fragment TeamName/);
    expect(() => operationsOf('fragment TeamName on Team { nope }', {})).toThrow(
      /fragments\.graphql does not validate/,
    );
  });
});
