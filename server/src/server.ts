/**
 * Entry point of Braid's language server (bundled to dist/server.js).
 * Speaks LSP over stdio (`--stdio`), or over node IPC when the client starts
 * it that way.
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { BraidServer } from './lsp/braidServer';
import { pinpoint } from './recorder/runs/pinpoint';

const connection = createConnection(ProposedFeatures.all);
process.on('uncaughtException', (err) => {
  try {
    connection.console.error(`uncaught: ${err?.stack ?? err}`);
  } catch {
    /* the connection may be gone */
  }
});
new BraidServer(connection, { pinpoint }).listen();
