/**
 * Issue 43, point 1: the analysis' lines through unsaved edits (server/src/lsp/lineMapping.ts) —
 * unchanged lines before the first edit and after the last one keep (and move with) their heat and
 * hover; the lines between are hidden.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { IDENTITY, lineMapping } from '../../server/src/lsp/lineMapping';

const disk = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n');

test('the same text maps every line to itself', () => {
  assert.equal(lineMapping(disk, disk), IDENTITY);
  assert.equal(lineMapping(disk, disk).toEditor(4), 4);
});

test('a line added above moves the lines below it; the edited region is hidden', () => {
  const m = lineMapping(disk, ['a', 'b', 'new', 'c', 'd', 'e', 'f'].join('\n'));
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((l) => m.toEditor(l)), [1, 2, 4, 5, 6, 7]);
  assert.deepEqual([1, 2, 3, 4, 7].map((l) => m.toDisk(l)), [1, 2, undefined, 3, 6]);
});

test('a changed line and everything between two edits is hidden; lines removed move the rest up', () => {
  const m = lineMapping(disk, ['a', 'B', 'c', 'f'].join('\n'));
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((l) => m.toEditor(l)), [1, undefined, undefined, undefined, undefined, 4]);
  assert.deepEqual([1, 2, 3, 4, 5].map((l) => m.toDisk(l)), [1, undefined, undefined, 6, undefined]);
});

test('CRLF and LF texts with the same lines map as the same lines', () => {
  const m = lineMapping('a\r\nb\r\nc', 'a\nb\nX\nc');
  assert.deepEqual([1, 2, 3].map((l) => m.toEditor(l)), [1, 2, 4]);
});
