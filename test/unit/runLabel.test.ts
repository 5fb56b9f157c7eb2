/** Short run labels of the Runs view (issue 16: `Bank #42 ✗ exception`, not the long execution id). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { runLabel, shortProgramName, splitExecution } from '../../client/src/runLabel';

test('execution ids split into name and run number, with or without the recording time', () => {
  assert.deepEqual(splitExecution('src_bank_Bank.java-20261123-141812-0042'), { name: 'src_bank_Bank.java', index: 42 });
  assert.deepEqual(splitExecution('vectorcopy.VectorCopy-0007'), { name: 'vectorcopy.VectorCopy', index: 7 });
  assert.deepEqual(splitExecution('bad'), { name: 'bad' });
});

test('program names shorten to the class (the class of a recorded test)', () => {
  assert.equal(shortProgramName('src_bank_Bank.java'), 'Bank');
  assert.equal(shortProgramName('vectorcopy.VectorCopy'), 'VectorCopy');
  assert.equal(shortProgramName('AccountTest.concurrentDepositsAreAllKept'), 'AccountTest');
  assert.equal(shortProgramName('mvn'), 'mvn');
  // a JS/TS test from the lens (recorder/node/jsTestCommand.ts): the file's name
  assert.equal(shortProgramName('inventory.two-concurrent-orders-are-both-reserved'), 'inventory');
  assert.equal(shortProgramName('inventory.adds'), 'inventory');
  assert.equal(shortProgramName('Inventory.Two-orders'), 'Inventory');
});

test('labels: name, number, ✗ and the reason or ✓', () => {
  assert.equal(runLabel({ execution: 'src_bank_Bank.java-20261123-141812-0042', outcome: 'fail', reason: 'exception' }), 'Bank #42 ✗ exception');
  assert.equal(runLabel({ execution: 'bank.Bank-0003', outcome: 'fail', reason: 'exit-code' }), 'Bank #3 ✗ exit code');
  assert.equal(runLabel({ execution: 'bank.Bank-0004', outcome: 'pass', reason: 'ok' }), 'Bank #4 ✓');
  assert.equal(runLabel({ execution: 'imported', outcome: 'fail' }), 'imported ✗ failed');
  assert.equal(runLabel({ execution: 'AccountTest.concurrentDepositsAreAllKept-20261123-161500-0003', outcome: 'fail', reason: 'exit-code' }), 'AccountTest #3 ✗ exit code');
});

test('runs of two recordings that share a name and number are told apart by the recording time (else the full name)', () => {
  const runs = [
    { execution: 'vectorcopy.VectorCopy-0000', outcome: 'fail' as const, reason: 'exception' },
    { execution: 'vectorcopy.VectorCopy-20261123-141812-0000', outcome: 'pass' as const },
    { execution: 'vectorcopy.VectorCopy-20261123-141812-0001', outcome: 'pass' as const },
    { execution: 'other.VectorCopy-0001', outcome: 'pass' as const },
  ];
  assert.deepEqual(
    runs.map((r) => runLabel(r, runs)),
    ['VectorCopy #0 ✗ exception', 'VectorCopy #0 · 14:18:12 ✓', 'VectorCopy #1 · 14:18:12 ✓', 'VectorCopy #1 ✓'],
  );
  // two runs without a recording time share the label: the full program name tells them apart
  const untimed = [runs[3], { execution: 'vectorcopy.VectorCopy-0001', outcome: 'fail' as const, reason: 'timeout' }];
  assert.deepEqual(
    untimed.map((r) => runLabel(r, untimed)),
    ['VectorCopy #1 · other.VectorCopy ✓', 'VectorCopy #1 · vectorcopy.VectorCopy ✗ timeout'],
  );
  // no peer shares the label: nothing added
  assert.equal(runLabel(runs[0], [runs[0], runs[2]]), 'VectorCopy #0 ✗ exception');
});
