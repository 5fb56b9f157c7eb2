/**
 * The reader thread (traceReaderThread.ts): reads one trace file with the
 * one-thread reader (traceReader.ts) and hands its events and definitions to
 * the collecting thread in batches (eventBatch.ts), then posts the reader's
 * result (without the symbol tables, which the collecting thread rebuilt).
 */
import { parentPort } from 'node:worker_threads';
import { readTrace, ReadTraceOptions } from './traceReader';
import { EventBatchWriter, RecordingTraceSymbols, ReaderAborted } from './eventBatch';

export interface ReaderThreadRequest {
  seq: number;
  file: string;
  options: Omit<ReadTraceOptions, 'symbols'>;
  slots: SharedArrayBuffer[];
  control: SharedArrayBuffer;
}

// one read at a time: the collecting thread sends the next file after this one's result
parentPort?.on('message', (m: ReaderThreadRequest) => {
  const port = parentPort!;
  const writer = new EventBatchWriter(m.slots, new Int32Array(m.control), (b) => port.postMessage(b));
  const symbols = new RecordingTraceSymbols(writer.define);
  readTrace(m.file, { header: (h) => writer.header(h), event: (ev, _s, line) => writer.event(ev, line) }, { ...m.options, symbols })
    .then((r) => {
      writer.flush();
      const { symbols: _, ...rest } = r;
      port.postMessage({ type: 'done', seq: m.seq, result: rest, truncatedStacks: symbols.truncatedStacks });
    })
    .catch((err) => {
      if (!(err instanceof ReaderAborted)) port.postMessage({ type: 'failed', seq: m.seq, message: String((err as Error)?.stack ?? err) });
    });
});
