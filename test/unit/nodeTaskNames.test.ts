/**
 * Readable task names of the Node.js recorder (issue 42 item 6, runtime.ts callbackTaskName): a
 * callback task is named by what the user's code called and the callback's function, not by the
 * async resource's constructor (a nextTick's is `Object`, which made tasks "Object #7").
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { callbackTaskName } from '../../server/src/recorder/node/runtime';

test('callback tasks: the kind the user called and the callback function', () => {
  class Timeout {
    _onTimeout = function flush() {};
  }
  const anonymous = (): (() => void) => () => {};
  class Immediate {
    _onImmediate = anonymous();
  }
  assert.equal(callbackTaskName('Timeout', new Timeout()), 'setTimeout flush');
  assert.equal(callbackTaskName('Immediate', new Immediate()), 'setImmediate');
  assert.equal(callbackTaskName('TickObject', { callback: function onEnd() {} }), 'nextTick onEnd');
  assert.equal(callbackTaskName('TickObject', { callback: anonymous() }), 'nextTick');
  assert.equal(callbackTaskName('FSREQCALLBACK', {}), 'fs callback');
  assert.equal(callbackTaskName('TCPWRAP', {}), 'socket');
  assert.equal(callbackTaskName('SOMETHINGNEW', {}), 'SOMETHINGNEW', 'an unknown plain resource: its type, never Object');
  class HTTPParser {}
  assert.equal(callbackTaskName(undefined, new HTTPParser()), 'HTTPParser');
  assert.equal(callbackTaskName('Timeout', { _onTimeout: function onTimer() {}.bind(null) }), 'setTimeout onTimer', 'a bound function: its own name');
  assert.equal(callbackTaskName('Timeout', { _onTimeout: anonymous().bind(null) }), 'setTimeout');
});
