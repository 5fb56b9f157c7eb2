/**
 * The corpus scorers' rule for "a suspicious method is a fixed method" (bench/realCorpus.ts
 * `isFixMethod`, used by bench/realEval.ts and bench/nodeEval.ts) on the Node.js recorder's names
 * (docs/recorder-node.md "Function names"): a callback named after what it handles counts for the
 * function it was passed in; a named nested function (`handle in createApp`) for itself and for the
 * functions it was made in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFixMethod } from '../../bench/realCorpus';

test('a method is a fixed method by name, class-qualified either way, or nested in it', () => {
  assert.ok(isFixMethod('CacheServer.get', ['get']));
  assert.ok(isFixMethod('get', ['CacheServer.get']));
  assert.ok(isFixMethod('serveFs/<anonymous>', ['serveFs']));
  // both at once: async-autoerror's truth names `async.auto` (the source's `async.auto = function …`),
  // which the recorder names `auto`, and its nested callbacks `auto/<anonymous>`
  assert.ok(isFixMethod('auto/<anonymous>/<anonymous>', ['async.auto']));
  assert.ok(isFixMethod('listener in auto/<anonymous>', ['async.auto']));
  assert.ok(!isFixMethod('autoInject/<anonymous>', ['async.auto']));
  assert.ok(!isFixMethod('CacheServer.set', ['CacheServer.get']));
});

test('an anonymous callback counts for the function it was passed in, not for the words that describe it', () => {
  assert.ok(isFixMethod('then callback of load in Pool.acquire', ['Pool.acquire']));
  assert.ok(isFixMethod("'free' listener of Agent in Agent.addRequest", ['addRequest']));
  assert.ok(!isFixMethod('then callback of load in Pool.acquire', ['load']));
  assert.ok(!isFixMethod('setTimeout callback in Breaker.trip', ['setTimeout']));
});

test('a named nested function counts for itself and for each function it was made in', () => {
  // lokijs: the save's named callback, made in the method the fix changed
  assert.ok(isFixMethod('saveDatabasecallback in Loki.saveDatabaseInternal', ['Loki.saveDatabaseInternal']));
  assert.ok(isFixMethod('saveDatabasecallback in saveDatabaseInternal', ['Loki.saveDatabaseInternal']));
  // the team's sessionstore: the fix goes into the returned handler itself
  assert.ok(isFixMethod('handle in createApp', ['handle']));
  assert.ok(isFixMethod('bump in handle in makeHandler', ['handle']));
  assert.ok(!isFixMethod('handle in createApp', ['destroy']));
});
