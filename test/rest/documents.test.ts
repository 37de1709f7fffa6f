/** The REST documents' shared fragments: each document gets exactly the ones it spreads, or start-up fails. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { InvalidOperationError, loadOperations } from '../../rest-compat/documents.js';
import { schema } from '../../src/graphql/schema/index.js';

/** An operations folder holding `files` (name to text). */
function folderWith(files: Record<string, string>): URL {
  const folder = mkdtempSync(join(tmpdir(), 'rest-ops-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return pathToFileURL(`${folder}/`);
}

const fragmentNames = (source: string) =>
  parse(source).definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [d.name.value] : []));

describe('shared fragments', () => {
  it('appends to each document the fragments it spreads, transitively, and no others', () => {
    const operations = loadOperations(schema);
    expect(operations.has('fragments')).toBe(false);
    expect(fragmentNames(operations.get('ListMeetings')!.source)).toEqual(['RestMeeting']);
    expect(fragmentNames(operations.get('RecordingTranscript')!.source)).toEqual([]);
    const folder = folderWith({
      'fragments.graphql':
        'fragment TeamName on Team { name ...TeamCreated } fragment TeamCreated on Team { createdAt } fragment Unused on Team { name }',
      'Teams.graphql': 'query Teams { teams { edges { node { ...TeamName } } } }',
    });
    expect(fragmentNames(loadOperations(schema, folder).get('Teams')!.source).sort()).toEqual([
      'TeamCreated',
      'TeamName',
    ]);
  });

  it('start-up fails, naming the document, on a spread of a fragment defined nowhere', () => {
    const folder = folderWith({
      'fragments.graphql': 'fragment TeamName on Team { name }',
      'Teams.graphql': 'query Teams { teams { edges { node { ...TeamNme } } } }',
    });
    expect(() => loadOperations(schema, folder)).toThrow(InvalidOperationError);
    expect(() => loadOperations(schema, folder)).toThrow(
      'rest-compat/operations/Teams.graphql spreads ...TeamNme, which neither it nor rest-compat/operations/fragments.graphql defines.',
    );
  });

  it('start-up fails on a document redefining a shared fragment, and on a shared fragment that does not fit the schema', () => {
    const redefined = folderWith({
      'fragments.graphql': 'fragment TeamName on Team { name }',
      'Teams.graphql':
        'query Teams { teams { edges { node { ...TeamName } } } }\nfragment TeamName on Team { createdAt }',
    });
    expect(() => loadOperations(schema, redefined)).toThrow(/Teams\.graphql defines fragment TeamName/);
    const broken = folderWith({ 'fragments.graphql': 'fragment TeamName on Team { nope }' });
    expect(() => loadOperations(schema, broken)).toThrow(/fragments\.graphql does not validate/);
  });
});
