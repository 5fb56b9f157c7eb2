/**
 * Library code versus the user's code (server/src/engine/libraryCode.ts): the JDK's files and
 * methods are shown at the user's calling line; a library of the class path — also one under
 * com/sun/ or javax/, which the Java agent records since it tells the JDK by class loader — is
 * shown at its own line, like any other library under test.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { isLibraryCode, nearestUserFrame } from '../../server/src/engine/libraryCode';

test('java/, kotlin/, scala/, org/junit/ are library code; com/sun/ and javax/ libraries of the class path are not', () => {
  assert.equal(isLibraryCode('java/util/ArrayList.java', 'java.util.ArrayList.add'), true);
  assert.equal(isLibraryCode('kotlin/collections/ArrayList.kt', 'kotlin.collections.ArrayList.add'), true);
  assert.equal(isLibraryCode('org/junit/Assert.java', 'org.junit.Assert.fail'), true);
  assert.equal(isLibraryCode('com/sun/jersey/client/impl/CopyOnWriteHashMap.java', 'com.sun.jersey.client.impl.CopyOnWriteHashMap.getView'), false);
  assert.equal(isLibraryCode('javax/cache/ri/RICache.java', 'javax.cache.ri.RICache.put'), false);
  assert.equal(isLibraryCode('org/apache/commons/pool2/impl/GenericObjectPool.java', 'org.apache.commons.pool2.impl.GenericObjectPool.returnObject'), false);
});

test('an access in a javax library keeps its own line; one in the JDK goes to the nearest user frame', () => {
  const user = { file: 'app/CacheTest.java', line: 30, method: 'app.CacheTest.run' };
  const javaxLib = { file: 'javax/cache/ri/RICache.java', line: 88, method: 'javax.cache.ri.RICache.put' };
  assert.equal(nearestUserFrame(javaxLib, [user, javaxLib]), undefined);
  const jdk = { file: 'java/util/HashMap.java', line: 610, method: 'java.util.HashMap.put' };
  assert.deepEqual(nearestUserFrame(jdk, [user, javaxLib, jdk]), javaxLib);
});
