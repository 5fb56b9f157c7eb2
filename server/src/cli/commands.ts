/**
 * Commands beyond `analyze`, each in its own module: `record` runs a
 * program many times under the Java recorder (server/src/recorder); `mine`
 * and `explain` are the sequential-pattern-mining explanations
 * (server/src/engine/mining); `methods` is the call-graph method ranking
 * (server/src/engine/callgraph); `test` records and analyzes one JUnit/TestNG test (testCliCommand.ts);
 * `mcp` is the MCP server for coding agents (server/src/mcp).
 */
import { RECORD_USAGE, runRecordCommand } from '../recorder/runs/recordCommand';
import { EXPLAIN_USAGE, MINE_USAGE, runExplainCommand, runMineCommand } from './mineCommand';
import { METHODS_USAGE, runMethodsCommand } from './methodsCommand';
import { PINPOINT_USAGE, runPinpointCommand } from './pinpointCommand';
import { CONFIRM_USAGE, runConfirmCommand } from './confirmCommand';
import { runTestCommand, TEST_USAGE } from './testCliCommand';
import { MCP_USAGE } from '../mcp/mcpUsage';

export interface ExtraCommand {
  usage: string;
  run(argv: string[]): Promise<number>;
}

export const extraCommands: Record<string, ExtraCommand> = {
  record: { usage: RECORD_USAGE, run: runRecordCommand },
  mine: { usage: MINE_USAGE, run: runMineCommand },
  explain: { usage: EXPLAIN_USAGE, run: runExplainCommand },
  methods: { usage: METHODS_USAGE, run: runMethodsCommand },
  pinpoint: { usage: PINPOINT_USAGE, run: runPinpointCommand },
  confirm: { usage: CONFIRM_USAGE, run: runConfirmCommand },
  test: { usage: TEST_USAGE, run: runTestCommand },
  // loaded on use: the MCP SDK is not initialized by the other commands
  mcp: { usage: MCP_USAGE, run: async (argv) => (await import('../mcp/mcpCommand.js')).runMcpCommand(argv) },
};
