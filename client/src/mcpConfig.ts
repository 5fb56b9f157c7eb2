/**
 * "Braid: Add MCP Server to Workspace" (issue 44): Braid's MCP server (`braid mcp`, docs/agents.md) as
 * an entry `servers.braid` of the workspace folder's `.vscode/mcp.json`, the file VS Code's agent
 * mode reads MCP servers from. The file is JSON with comments: it is edited with jsonc-parser's
 * `modify`, so other servers, inputs, comments and formatting are kept; only `servers.braid` is
 * written. A file that does not parse is left alone, and the error names the file, line and column.
 * The server gets the workspace folder as its only root (`--root ${workspaceFolder}`): it runs
 * programs nowhere else (docs/security.md).
 */
import { applyEdits, modify, parse, ParseError, printParseErrorCode } from 'jsonc-parser';

export const MCP_SERVER_KEY = 'braid';

export interface McpServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
}

/** The entry for the extension's own CLI bundle (`<extension>/dist/braid.js mcp --root ${workspaceFolder}`). */
export function braidServerEntry(cliPath: string): McpServerEntry {
  return { type: 'stdio', command: 'node', args: [cliPath, 'mcp', '--root', '${workspaceFolder}'] };
}

export class McpConfigError extends Error {}

/** Line and column (1-based) of a character offset. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

/**
 * `text` (the current file, or undefined when there is none) with `servers.braid` set to `entry`.
 * `changed` is false when the entry was already there as given; `replaced` when another `braid`
 * entry was overwritten.
 */
export function withBraidServer(text: string | undefined, entry: McpServerEntry, file = '.vscode/mcp.json'): { text: string; changed: boolean; replaced: boolean } {
  const source = text === undefined || text.trim() === '' ? '{}\n' : text;
  const errors: ParseError[] = [];
  const value = parse(source, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0];
    throw new McpConfigError(`${file}:${position(source, e.offset)}: ${printParseErrorCode(e.error)} — the file is not valid JSON with comments; fix it (nothing was written)`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new McpConfigError(`${file}: the file must hold an object ({ "servers": { … } }); nothing was written`);
  const servers = (value as { servers?: unknown }).servers;
  if (servers !== undefined && (servers === null || typeof servers !== 'object' || Array.isArray(servers))) {
    throw new McpConfigError(`${file}: "servers" must be an object of named servers; nothing was written`);
  }
  const old = (servers as Record<string, unknown> | undefined)?.[MCP_SERVER_KEY];
  if (old !== undefined && JSON.stringify(old) === JSON.stringify(entry)) return { text: source, changed: false, replaced: false };
  const indent = /\n(\t+|[ ]+)"/.exec(source)?.[1];
  const edits = modify(source, ['servers', MCP_SERVER_KEY], entry, {
    formattingOptions: { insertSpaces: !indent?.startsWith('\t'), tabSize: indent && !indent.startsWith('\t') ? indent.length : 2, eol: source.includes('\r\n') ? '\r\n' : '\n' },
  });
  let out = applyEdits(source, edits);
  if (!out.endsWith('\n')) out += '\n';
  return { text: out, changed: true, replaced: old !== undefined };
}
