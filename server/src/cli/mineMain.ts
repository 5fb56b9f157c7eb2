/**
 * Entry of the small `braid mine` bundle (dist/braid-mine.js): bin/braid.js loads it instead of
 * the whole CLI for `braid mine`, so the command starts as fast as node itself (it is compared
 * end to end with SPMF's BIDE+, JVM start included: bench/mine-spmf-bench.mjs).
 */
import { runMineCommand } from './mineCommand';

export function main(argv: string[]): Promise<number> {
  return runMineCommand(argv[0] === 'mine' ? argv.slice(1) : argv);
}
