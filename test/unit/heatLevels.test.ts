/**
 * Line heat (client/src/heat.ts, docs/extension.md "In the editor"): the lines of ranked patterns
 * are painted in three levels — High for scores ≥ 0.75, Medium for ≥ 0.4, Low below — only in the
 * editors of their file and within the document; braid.heat.enabled = false clears them. Runs the
 * real class against a small `vscode` mock (test/helpers/vscodeMock.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { changeConfiguration, mockEditor, settings, useVscodeMock, window } from '../helpers/vscodeMock';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { HeatDecorations } = require('../../client/src/heat') as typeof import('../../client/src/heat');

test('heat levels by score; other files untouched; heat.enabled turns them off', () => {
  const a = mockEditor('/w/src/A.java', 20);
  const b = mockEditor('/w/src/B.java', 20);
  window.visibleTextEditors = [a, b];
  const heat = new HeatDecorations({ asAbsolutePath: (p: string) => p } as never);
  heat.update({
    files: [
      {
        uri: pathToFileURL('/w/src/A.java').href,
        lines: [
          { line: 3, score: 1, rank: 1 },
          { line: 4, score: 0.75, rank: 2 },
          { line: 5, score: 0.7499, rank: 3 },
          { line: 6, score: 0.4, rank: 4 },
          { line: 7, score: 0.3999, rank: 5 },
          { line: 8, score: 0, rank: 6 },
          { line: 99, score: 1, rank: 1 }, // beyond the document: ignored
        ],
      },
    ],
  } as never);
  const byLevel = (e: typeof a) => Object.fromEntries([...e.decorations].map(([id, lines]) => [id.split(':')[1].replace(/^braid\.heat|Background$/g, ''), lines]));
  assert.deepEqual(byLevel(a), { High: [3, 4], Medium: [5, 6], Low: [7, 8] });
  assert.deepEqual(byLevel(b), { High: [], Medium: [], Low: [] });
  settings['heat.enabled'] = false;
  changeConfiguration('braid.heat');
  assert.deepEqual(byLevel(a), { High: [], Medium: [], Low: [] });
  settings['heat.enabled'] = true;
  changeConfiguration('braid.heat.enabled');
  assert.deepEqual(byLevel(a), { High: [3, 4], Medium: [5, 6], Low: [7, 8] });
  heat.dispose();
});
