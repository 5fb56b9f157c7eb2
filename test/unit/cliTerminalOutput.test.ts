/**
 * Issue 31, N5: trace names in the CLI's text output and stderr (the built CLI, as CI runs it).
 * A name with `\n::warning file=…::`, `::add-mask::`, ESC and OSC-8 sequences, and a summary
 * diagnostic whose file is `::error file=…`, must reach stdout/stderr as text: no line starting
 * with `::` (GitHub Actions runs those as workflow commands), no raw control character.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { terminalLine, terminalText } from '../../server/src/engine/outputEscaping';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'bin/braid.js');

function braid(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

before(() => assert.ok(existsSync(path.join(root, 'dist/braid.js')), 'dist/braid.js is missing: run `npm run build` first'));

const ESC = '\u001b';
const VAR = 'stock\n::warning file=a.java::x\n  ::add-mask::hidden';
const METHOD = `shop.Shop.take${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\${ESC}[2J\r::error::m\u009b31m`;
const FILE = '::add-mask::Shop.java';
const THREAD = 'worker\n::stop-commands::tok';

function hostileTraces(): string {
  const dir = tempDir('braid-term-');
  const mk = (exec: string, outcome: string, order: number[]) => {
    const lines = [
      JSON.stringify({ braid: 'trace', version: 1, execution: exec, outcome }),
      JSON.stringify({ def: 'thread', id: 1, name: THREAD }),
      JSON.stringify({ def: 'thread', id: 2, name: 'T2' }),
      JSON.stringify({ def: 'var', id: 0, name: VAR }),
      JSON.stringify({ def: 'var', id: 1, name: 'sold\n::error file=b.java::y' }),
      JSON.stringify({ def: 'loc', id: 0, file: FILE, line: 4, method: METHOD }),
      JSON.stringify({ def: 'loc', id: 1, file: 'Shop.java', line: 5, method: 'shop.Shop.restock\n::notice::n' }),
    ];
    let i = 0;
    for (const t of order) lines.push(JSON.stringify([++i, t, 'W', 0, t - 1]), JSON.stringify([++i, t, 'W', 1, t - 1]));
    return lines.join('\n') + '\n';
  };
  for (let k = 0; k < 4; k++) {
    writeFileSync(path.join(dir, `f${k}.trace.jsonl`), mk(`fail-${k}\n::warning::run`, 'fail', [1, 2, 1, 2]));
    writeFileSync(path.join(dir, `p${k}.trace.jsonl`), mk(`pass-${k}`, 'pass', [1, 1, 2, 2]));
  }
  return dir;
}

/** No line a CI runner would take for a workflow command, no raw control character (\n ends lines). */
function assertTerminalSafe(what: string, text: string): void {
  for (const line of text.split('\n')) {
    assert.doesNotMatch(line, /^\s*::/, `${what}: a workflow command line: ${JSON.stringify(line)}`);
    assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f]/, `${what}: a raw control character: ${JSON.stringify(line)}`);
  }
}

test('N5: analyze (text, with GRIFFIN bugs), methods and explain print trace names as escaped text', () => {
  const dir = hostileTraces();
  const runs = [
    ['analyze', dir, '--griffin-clustering', 'thesis'],
    ['analyze', dir],
    ['methods', dir],
    ['explain', dir],
  ];
  for (const args of runs) {
    const r = braid(...args);
    assertTerminalSafe(`braid ${args[0]} stdout`, r.out);
    assertTerminalSafe(`braid ${args[0]} stderr`, r.err);
    if (args[0] === 'analyze') {
      assert.equal(r.code, 0, r.err);
      // the names are shown, escaped
      assert.ok(r.out.includes(String.raw`stock\n\x3a:warning file=a.java::x`) || r.out.includes(String.raw`stock\n::warning file=a.java::x`), r.out);
      assert.ok(r.out.includes(String.raw`\x1b]8;;https://evil.example`), r.out);
    }
  }
  assert.match(braid('analyze', dir, '--griffin-clustering', 'thesis').out, /GRIFFIN — [1-9]/, 'the bugs section is printed');
});

test('N5: a summary diagnostic naming the file "::error file=…" is one escaped stderr line', () => {
  const dir = hostileTraces();
  const summary = path.join(dir, 'shard.braid-summary.json');
  const s = braid('summarize', dir, '-o', summary);
  assert.equal(s.code, 0, s.err);
  const j = JSON.parse(readFileSync(summary, 'utf8'));
  j.runs[0].diagnostics.push({ severity: 'error', file: '::error file=a.java,line=1::owned', line: 3, message: `bad\n::add-mask::x ${ESC}[31mred` });
  writeFileSync(summary, JSON.stringify(j));
  const r = braid('analyze', summary);
  assert.equal(r.code, 0, r.err);
  assertTerminalSafe('stderr', r.err);
  assertTerminalSafe('stdout', r.out);
  // shown, escaped, on one line (wherever the file name goes in it)
  const line = r.err.split('\n').find((l) => l.includes('owned'));
  assert.ok(line?.includes(String.raw`bad\n::add-mask::x \x1b[31mred`), r.err);
});

test('N5: terminalLine and terminalText', () => {
  assert.equal(terminalLine('a\nb'), 'a\\nb');
  assert.equal(terminalLine('  ::warning::x'), '  \\x3a:warning::x');
  assert.equal(terminalLine('\t::x'), '\\t::x', 'a tab is escaped, so the line no longer starts with blanks and ::');
  assert.equal(terminalLine(`${ESC}[31m\u009b\u007f\u202e`), '\\x1b[31m\\x9b\\x7f\\u202e');
  assert.equal(terminalLine('##[error]x'), '#\\x23[error]x');
  assert.equal(terminalText('ok\n::error::x\r\n'), 'ok\n\\x3a:error::x\\r\n');
  assert.equal(terminalLine('Bank.java:12 (Bank.deposit) — ✓ ✗ ┌ │'), 'Bank.java:12 (Bank.deposit) — ✓ ✗ ┌ │', 'printable text unchanged');
});
