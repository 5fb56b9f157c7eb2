/**
 * Commands beyond `analyze`, each in its own module: `record` runs a
 * program many times under the Java recorder (server/src/recorder).
 */
import { RECORD_USAGE, runRecordCommand } from '../recorder/recordCommand';

export interface ExtraCommand {
  usage: string;
  run(argv: string[]): Promise<number>;
}

export const extraCommands: Record<string, ExtraCommand> = {
  record: { usage: RECORD_USAGE, run: runRecordCommand },
};
