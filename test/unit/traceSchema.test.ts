/** docs/trace-format.schema.json describes what the reader accepts. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

const root = path.resolve(__dirname, '../..');
const schema = JSON.parse(readFileSync(path.join(root, 'docs/trace-format.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);

function lines(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

test('every line of the committed fixture traces validates against the schema', () => {
  const dir = path.join(root, 'test/fixtures/traces/tablelog');
  let n = 0;
  for (const f of readdirSync(dir)) {
    for (const v of lines(path.join(dir, f))) {
      assert.ok(validate(v), `${f}: ${JSON.stringify(v)}: ${JSON.stringify(validate.errors?.[0])}`);
      n++;
    }
  }
  assert.ok(n > 20);
});

test('the documentation example validates; malformed lines do not', () => {
  const doc = readFileSync(path.join(root, 'docs/trace-format.md'), 'utf8');
  const example = doc.split('## Example')[1].split('```')[1];
  for (const l of example.split('\n').filter((x) => x.trim())) assert.ok(validate(JSON.parse(l)), l);
  for (const bad of [[1, 1, 'X', 0, 0], [1, 1, 'R', 0], { def: 'var', id: -1, name: 'x' }, { braid: 'trace', version: 2, execution: 'e' }, { outcome: 'maybe' }]) {
    assert.equal(validate(bad), false, JSON.stringify(bad));
  }
});
