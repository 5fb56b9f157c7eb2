/** `braid mcp`'s usage lines (apart from mcpCommand.ts, so `braid --help` does not load the MCP SDK). */
export const MCP_USAGE = `  braid mcp --root DIR [--root DIR...]
      the Model Context Protocol server for coding agents, on stdio (docs/agents.md): tools find_root_cause,
      confirm, reproduce, check_fix, list_recordings, explain_run; recordings as resources
      --root DIR                 a workspace folder the server may run programs in and read recordings
                                 from (repeatable); without one every tool refuses (docs/security.md)`;
