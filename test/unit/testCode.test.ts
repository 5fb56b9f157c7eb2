import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestCodeClassifier, globToRegExp } from '../../server/src/engine/testCode';

test('test code: recorder flag, Maven/Gradle test roots, user globs', () => {
  const c = new TestCodeClassifier(['**/*Test.java', 'shop.fixtures.**']);
  assert.equal(c.isTestCode({ file: 'shop/Inventory.java', method: 'shop.Inventory.add' }), false);
  assert.equal(c.isTestCode({ file: 'shop/Inventory.java', method: 'shop.Inventory.add', harness: true }), true);
  assert.equal(c.isTestCode({ file: 'proj/src/test/java/shop/X.java', method: 'shop.X.run' }), true);
  assert.equal(c.isTestCode({ file: 'shop/InventoryTest.java', method: 'shop.InventoryTest.race' }), true);
  assert.equal(c.isTestCode({ file: 'shop/fixtures/Data.java', method: 'shop.fixtures.Data.fill' }), true);
  assert.equal(new TestCodeClassifier().isTestCode({ file: 'shop/InventoryTest.java', method: 'shop.InventoryTest.race' }), false);
  assert.equal(globToRegExp('a/*.java').test('a/b/c.java'), false);
  assert.equal(globToRegExp('a/**/c.java').test('a/b/c.java'), true);
});
