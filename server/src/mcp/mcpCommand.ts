/**
 * `braid mcp --root DIR [--root DIR…]`: Braid's MCP server on stdin/stdout (braidMcpServer.ts) for
 * coding agents (VS Code agent mode, any MCP client; docs/agents.md). It runs programs and reads
 * recordings only inside the folders given with --root (docs/security.md). Logs go to stderr; stdout
 * carries only the protocol.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createBraidMcpServer } from './braidMcpServer';
import { MCP_USAGE } from './mcpUsage';

export class McpUsageError extends Error {}

export function parseMcpArgs(argv: readonly string[], cwd = process.cwd()): { roots: string[] } {
  const roots: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    const eq = arg.startsWith('--root=') ? arg.slice('--root='.length) : undefined;
    if (arg === '--root' || eq !== undefined) {
      const v = eq ?? argv[++k];
      if (v === undefined || v === '' || (eq === undefined && v.startsWith('--'))) throw new McpUsageError('--root needs a folder');
      const abs = path.resolve(cwd, v);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st?.isDirectory()) throw new McpUsageError(`--root ${v}: ${st ? 'not a folder' : 'no such folder'}`);
      roots.push(abs);
      continue;
    }
    throw new McpUsageError(`unknown argument ${arg} (braid mcp takes --root DIR)`);
  }
  return { roots };
}

export async function runMcpCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`Usage:\n${MCP_USAGE}\n`);
    return 0;
  }
  let roots: string[];
  try {
    ({ roots } = parseMcpArgs(argv));
  } catch (e) {
    if (e instanceof McpUsageError) {
      process.stderr.write(`braid mcp: ${e.message}\n${MCP_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  const server = createBraidMcpServer(roots);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  process.stderr.write(`braid mcp: serving on stdio; roots: ${roots.length ? roots.join(', ') : 'none (every tool refuses; give --root)'}\n`);
  await closed;
  await server.close().catch(() => undefined);
  return 0;
}
