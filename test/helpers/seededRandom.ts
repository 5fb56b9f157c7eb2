import { mulberry32 } from '../../server/src/engine/seededRandom';

/** Deterministic PRNG (mulberry32) for generators, fuzzing and benchmarks: same seed, same data. */
export const rng = mulberry32;
