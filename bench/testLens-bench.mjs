// Test discovery behind the "Braid: find the root cause" code lens (issue 16): time of one
// findTests call (the work of one textDocument/codeLens request on a test file) for generated JUnit 5
// classes of 10…5000 test methods, each with comments, strings and nested blocks. Prints; never asserts.
//   node --import tsx bench/testLens-bench.mjs
import { findTests } from '../server/src/recorder/java/testDiscovery.ts';

console.log('test methods  file KiB  lenses  ms per call (median of 15)');
for (const n of [10, 100, 1000, 5000]) {
  const parts = ['package p;', 'import org.junit.jupiter.api.Test;', 'class BigTest {'];
  for (let i = 0; i < n; i++) parts.push('  @Test', `  void t${i}() { // {`, `    String s = "}@Test void x() {";`, `    if (s.isEmpty()) { s = "${i}"; }`, '  }', `  private void helper${i}() {}`);
  parts.push('}');
  const text = parts.join('\n');
  let lenses = 0;
  const times = [];
  for (let k = 0; k < 15; k++) {
    const t0 = performance.now();
    lenses = findTests(text).length;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`${String(n).padStart(12)}  ${(text.length / 1024).toFixed(0).padStart(8)}  ${String(lenses).padStart(6)}  ${times[7].toFixed(2).padStart(8)}`);
}
