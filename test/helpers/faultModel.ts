/**
 * The simulated program of seed 004 (after Ben-Asher et al., "Noise makers need to know where to be
 * silent"): instrumentation points are good (relevant: noise there raises the chance of the bug),
 * neutral, or bad (blocking: noise there hides the bug). The bug appears with probability `pBug`
 * when every relevant point has noise and no blocking point has, and with `pBase` otherwise (the
 * seed's third source of error: the bug appearing by chance).
 */
import { rng } from './seededRandom';
import type { ConfigurationOracle } from '../../server/src/engine/noise/configurationOracle';

export interface FaultModel {
  points: number;
  /** all of them must have noise (K_r) */
  relevant: number[];
  /** any of them with noise hides the bug (K_b) */
  blocking: number[];
  pBug: number;
  pBase: number;
  /** redundant trigger points: noise at any one of `relevant` elicits the bug (default: all needed) */
  any?: boolean;
  /** points whose noise raises the chance of the bug to `pMild` (when the relevant ones do not elicit it) */
  mild?: number[];
  pMild?: number;
}

export function faultModelOracle(m: FaultModel, seed: number): ConfigurationOracle & { calls: number } {
  const random = rng(seed);
  const relevant = new Set(m.relevant);
  const blocking = new Set(m.blocking);
  const mild = new Set(m.mild ?? []);
  const oracle = (async (active: readonly number[]) => {
    oracle.calls++;
    let on = 0;
    let blocked = false;
    let raised = false;
    for (const p of active) {
      if (relevant.has(p)) on++;
      if (blocking.has(p)) blocked = true;
      if (mild.has(p)) raised = true;
    }
    const elicited = m.any ? on > 0 : on === relevant.size;
    const p = elicited && !blocked ? m.pBug : raised ? (m.pMild ?? m.pBase) : m.pBase;
    return random() < p;
  }) as ConfigurationOracle & { calls: number };
  oracle.calls = 0;
  return oracle;
}
