/**
 * The agent's catalogue of instrumented points (agent option `points=FILE`, docs/noise.md): JSON
 * lines, one InstrumentedPoint each, appended per instrumented class by every JVM of every run
 * that used the file. Read here with repeated ids dropped (first kept); a line that does not parse
 * (a JVM killed mid-write) is skipped and counted.
 */
import { promises as fs } from 'node:fs';
import { InstrumentedPoint, PointKind } from '../../engine/noise/noisePlan';

const KINDS = new Set<PointKind>(['read', 'write', 'lock', 'unlock', 'sync', 'start', 'call', 'wait', 'notify', 'park', 'unpark', 'await', 'signal', 'invoke']);

export interface PointCatalogue {
  points: InstrumentedPoint[];
  /** lines skipped because they are not a valid point */
  skipped: number;
}

export function parsePointCatalogue(text: string): PointCatalogue {
  const points: InstrumentedPoint[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let p: Partial<InstrumentedPoint>;
    try {
      p = JSON.parse(line) as Partial<InstrumentedPoint>;
    } catch {
      skipped++;
      continue;
    }
    if (typeof p.id !== 'string' || typeof p.file !== 'string' || typeof p.line !== 'number' || typeof p.method !== 'string' || !KINDS.has(p.kind as PointKind)) {
      skipped++;
      continue;
    }
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    points.push({ id: p.id, file: p.file, line: p.line, method: p.method, kind: p.kind as PointKind });
  }
  return { points, skipped };
}

/** Reads a catalogue file; a missing file is an empty catalogue (no instrumented class ran). */
export async function readPointCatalogue(file: string): Promise<PointCatalogue> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { points: [], skipped: 0 };
    throw new Error(`cannot read the point catalogue ${file}: ${(e as Error).message}`);
  }
  return parsePointCatalogue(text);
}
