/** Issue 30, point 5: the Method Ranking's lenses never sit on test code (the test method, its lambdas). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { isTestMethod } from '../../server/src/lsp/methodState';

test('test code by place and class name', () => {
  assert.equal(isTestMethod({ method: 'bank.AccountTest.lambda$concurrentDepositsAreAllKept$0', file: 'bank/AccountTest.java' }), true);
  assert.equal(isTestMethod({ method: 'bank.AccountTest.concurrentDepositsAreAllKept()' }), true);
  assert.equal(isTestMethod({ method: 'bank.Helper.run', file: 'src/test/java/bank/Helper.java' }), true);
  assert.equal(isTestMethod({ method: 'bank.TestSupport.x' }), true);
  assert.equal(isTestMethod({ method: 'bank.Account.deposit', file: 'bank/Account.java' }), false);
  assert.equal(isTestMethod({ method: 'bank.Testimony.read', file: 'bank/Testimony.java' }), false);
});
