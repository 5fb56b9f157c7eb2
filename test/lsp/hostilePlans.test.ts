/**
 * Hostile noise plans and settings in a workspace (issue 31, findings N1, N9, N10), against the real
 * language server over stdio:
 * - N1: a trigger whose `together` (or `rank`) is more than the plan's triggers (100,000,000 made
 *   the hover build a 100 M-entry list, and the server died of OOM) skips that plan with a problem
 *   naming the file and the field; the other plans still load, and hovering the line answers.
 * - N9: plan files follow the traces' rules: a symbolic link leading out of the workspace folder is
 *   skipped (never read, never offered for Reproduce, refused by braid/record), and an error never
 *   quotes the text of a file that is not a plan.
 * - N10: in Restricted Mode, `braid.sourceRoots` outside the workspace folders are ignored (with a
 *   log line), so a trace naming /etc/passwd resolves to nothing; once trusted they count again.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { tempDir } from '../helpers/traceBuilder';
import type { PatternsResult, TriggerPointsResult } from '../../server/src/lsp/protocol';
import { planText, RESTOCK_TRIGGER, TAKE_TRIGGER } from '../helpers/noisePlanText';

const SRC = 'src/main/java/shop/Inventory.java';
const PASSWD_LIKE = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';

const plan = planText;
const take = TAKE_TRIGGER;
const restock = RESTOCK_TRIGGER;

describe('N1 and N9: hostile plan files', () => {
  let ws: string;
  let outside: string;
  let s: LspSession;
  let uri: string;

  before(async () => {
    ws = copyFixture();
    outside = tempDir('braid-outside-');
    const plans = path.join(ws, '.braid/plans');
    mkdirSync(plans, { recursive: true });
    // N1: the finding's plan, one with a rank beyond its triggers, and a good one
    const filler = [1, 2, 3, 4].map((rank) => ({ ...take, rank, line: 20 + rank }));
    writeFileSync(path.join(plans, 'huge.json'), plan('huge', [...filler, { ...take, rank: 5, together: 100_000_000 }]));
    writeFileSync(path.join(plans, 'rank.json'), plan('rank', [{ ...take, rank: 7 }, restock]));
    writeFileSync(path.join(plans, 'good.json'), plan('good', [take, restock]));
    // N9: links out of the workspace (to a plan and to a non-plan file), a link inside it, a non-plan file
    writeFileSync(path.join(outside, 'passwd'), PASSWD_LIKE);
    writeFileSync(path.join(outside, 'plan.json'), plan('outside', [take]));
    symlinkSync(path.join(outside, 'passwd'), path.join(plans, 'passwd.json'));
    symlinkSync(path.join(outside, 'plan.json'), path.join(plans, 'outside.json'));
    writeFileSync(path.join(ws, 'inside-plan.json'), plan('inside', [{ ...restock, rank: 1 }]));
    symlinkSync(path.join(ws, 'inside-plan.json'), path.join(plans, 'inside.json'));
    writeFileSync(path.join(plans, 'notaplan.json'), PASSWD_LIKE);
    writeFileSync(path.join(plans, 'otherjson.json'), JSON.stringify({ format: 'root:x:0:0:secret', a: 1 }));
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
    uri = await s.open(SRC, readFileSync(path.join(ws, SRC), 'utf8'));
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
    cleanup(outside);
  });

  test('N1: a "together" or "rank" beyond the plan\'s triggers skips that plan, naming file and field; the others load; the hover answers', async () => {
    const r: TriggerPointsResult = await s.connection.sendRequest('braid/triggerPoints');
    const names = r.plans.map((p) => p.name).sort();
    assert.ok(!names.includes('huge') && !names.includes('rank'), names.join(', '));
    assert.ok(names.includes('good'), names.join(', '));
    const problem = (f: string) => r.problems.find((p) => path.basename(p.file) === f)?.message ?? '';
    assert.match(problem('huge.json'), /^triggers\[4\]\.together: 100000000 is more than the plan's 5 trigger points; the plan is not used$/);
    assert.match(problem('rank.json'), /^triggers\[0\]\.rank: 7 is more than the plan's 2 trigger points; the plan is not used$/);
    assert.ok(s.logs().some((m) => m.includes('huge.json') && m.includes('triggers[4].together')), 'named in the output');
    const h: any = await s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 9, character: 12 } });
    assert.match(h.contents.value, /^\*\*Braid\*\* · trigger point \*\*#1\*\*: noise here raises the failure rate from \*\*2%\*\* to \*\*61%\*\*/);
  });

  test('N9: a plan file linking out of the workspace is skipped, never read or offered; a link inside is followed; errors quote nothing of a non-plan file', async () => {
    const r: TriggerPointsResult = await s.connection.sendRequest('braid/triggerPoints');
    const files = r.plans.map((p) => path.basename(p.file)).sort();
    assert.ok(!files.includes('outside.json') && !files.includes('passwd.json'), files.join(', '));
    assert.ok(files.includes('inside.json'), `a link to a file inside the workspace folder is followed: ${JSON.stringify(r.problems)}`);
    const problem = (f: string) => r.problems.find((p) => path.basename(p.file) === f)?.message ?? '';
    assert.match(problem('outside.json'), /^skipped: a symbolic link to a file outside the workspace folder/);
    assert.match(problem('passwd.json'), /^skipped: a symbolic link to a file outside the workspace folder/);
    assert.match(problem('notaplan.json'), /^not valid JSON/);
    assert.match(problem('otherjson.json'), /^not a Braid noise plan/);
    const everything = JSON.stringify(r) + s.logs().join('\n');
    assert.doesNotMatch(everything, /root:x|daemon|secret/, 'no text of a file that is not a plan');
    assert.ok(!everything.includes(outside), 'nor where the link leads');
    // Reproduce with the linked plan: braid/record refuses it before running anything
    await assert.rejects(
      s.connection.sendRequest('braid/record', { command: ['java', '-version'], runs: 1, plan: '.braid/plans/outside.json' }),
      /outside\.json is a symbolic link to a file outside the workspace folder; not used/,
    );
  });
});

describe('N10: braid.sourceRoots outside the workspace in Restricted Mode', () => {
  let ws: string;
  let outside: string;
  let s: LspSession;

  before(async () => {
    ws = copyFixture();
    outside = tempDir('braid-outside-');
    writeFileSync(path.join(outside, 'Secret.java'), 'secret\n');
    // traces whose failing order is between an access at /etc/passwd and one at outside/Secret.java
    const dir = path.join(ws, '.braid/traces/hostile');
    mkdirSync(dir, { recursive: true });
    const mk = (exec: string, outcome: string, order: number[]) => {
      const lines = [
        JSON.stringify({ braid: 'trace', version: 1, execution: exec, outcome }),
        JSON.stringify({ def: 'var', id: 0, name: 'hostile.X.v' }),
        JSON.stringify({ def: 'loc', id: 1, file: 'etc/passwd', line: 1, method: 'Passwd.m' }),
        JSON.stringify({ def: 'loc', id: 2, file: path.join(outside, 'Secret.java'), line: 1, method: 'Secret.m' }),
      ];
      let i = 0;
      for (const t of order) lines.push(JSON.stringify([++i, t, 'R', 0, t]), JSON.stringify([++i, t, 'W', 0, t]));
      return lines.join('\n') + '\n';
    };
    writeFileSync(path.join(dir, 'h1.trace.jsonl'), mk('h1', 'fail', [1, 2, 1, 2]));
    writeFileSync(path.join(dir, 'h2.trace.jsonl'), mk('h2', 'pass', [1, 1, 2, 2]));
    s = new LspSession(ws, { sourceRoots: ['/', outside, '.', 'src/main/java'] });
    await s.initialize({ trusted: false });
    await s.analysisDone();
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
    cleanup(outside);
  });

  const uris = (r: PatternsResult) => r.patterns.flatMap((p) => p.accesses.flatMap((a) => [a.uri, ...a.stack.map((f) => f.uri)]).filter((u): u is string => !!u));

  test('untrusted: /etc/passwd and a file under an outside root resolve to nothing; the roots are named in the output; trusted: they count', async () => {
    const r: PatternsResult = await s.connection.sendRequest('braid/patterns', {});
    assert.ok(r.patterns.some((p) => p.accesses.some((a) => a.file === 'etc/passwd')), 'the hostile traces were analyzed');
    assert.deepEqual(uris(r).filter((u) => u.includes('passwd') || u.includes('Secret')), []);
    for (const root of ['/', outside]) assert.ok(s.logs().some((m) => m.includes(`source root ${JSON.stringify(root)}`) && m.includes('ignored until the workspace is trusted')), root);
    assert.ok(!s.logs().some((m) => m.includes('source root "."') || m.includes('"src/main/java"')), 'roots inside the workspace are kept');
    // the workspace is trusted: the user's roots apply
    const since = s.notes.length;
    await s.connection.sendNotification('braid/workspaceTrust', { trusted: true });
    await s.analysisDone(since);
    const t: PatternsResult = await s.connection.sendRequest('braid/patterns', {});
    assert.ok(uris(t).includes('file:///etc/passwd'), uris(t).join(' '));
    assert.ok(uris(t).includes(pathToFileURL(path.join(outside, 'Secret.java')).href));
  });
});
