/** The SDK's MCP client on the real `braid mcp` process (dist/braid.js), for the MCP tests. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const repoRoot = path.resolve(__dirname, '..', '..');
const cli = path.join(repoRoot, 'dist', 'braid.js');

export async function connect(roots: string[]): Promise<Client> {
  assert.ok(existsSync(cli), 'dist/braid.js is built (npm run build)');
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', ...roots.flatMap((r) => ['--root', r])], stderr: 'pipe' });
  const client = new Client({ name: 'braid-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult;
}

export const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
