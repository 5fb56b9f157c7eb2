/**
 * The engine is a library of its own (README "Layout", issue 45 item 4): none of its files imports
 * anything from the language server (server/src/lsp/), the CLI, the MCP server or the recorder. The
 * types it shares with the language server, the client and the webviews are in server/src/protocol/.
 * The MCP server, too, sits on the engine and imports nothing from lsp/.
 * Imports are read with TypeScript's own parser (import/export declarations, import(), require()),
 * so a comment or a string that names a path does not count.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..', '..');
const engine = path.join(root, 'server', 'src', 'engine');
const FORBIDDEN = ['lsp', 'cli', 'mcp', 'recorder'].map((d) => path.join(root, 'server', 'src', d) + path.sep);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|cts)$/.test(name)) out.push(p);
  }
  return out;
}

function specifiers(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) out.push(n.moduleSpecifier.text);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) out.push(n.argument.literal.text);
    else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(n.expression) && n.expression.text === 'require')) && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) out.push(n.arguments[0].text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test('the engine imports nothing from lsp/, cli/, mcp/ or recorder/', () => {
  const files = sources(engine);
  assert.ok(files.length > 50, `expected the engine's sources under ${engine}`);
  const wrong: string[] = [];
  for (const f of files) {
    for (const s of specifiers(f)) {
      if (!s.startsWith('.')) continue;
      const target = path.resolve(path.dirname(f), s);
      if (FORBIDDEN.some((d) => target.startsWith(d))) wrong.push(`${path.relative(root, f)}: '${s}'`);
    }
  }
  assert.deepEqual(wrong, [], 'the engine must not import these (shared types go to server/src/protocol/)');
});

test('the MCP server imports nothing from the language server (lsp/): both sit on the engine', () => {
  const mcp = path.join(root, 'server', 'src', 'mcp');
  const lsp = path.join(root, 'server', 'src', 'lsp') + path.sep;
  const files = sources(mcp);
  assert.ok(files.length > 5, `expected the MCP server's sources under ${mcp}`);
  const wrong = files.flatMap((f) => specifiers(f).filter((s) => s.startsWith('.') && path.resolve(path.dirname(f), s).startsWith(lsp)).map((s) => `${path.relative(root, f)}: '${s}'`));
  assert.deepEqual(wrong, [], 'shared types go to server/src/protocol/, shared code to the engine');
});
