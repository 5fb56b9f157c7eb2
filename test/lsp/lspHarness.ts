/**
 * Starts Braid's language server over stdio and speaks LSP to it, as an
 * editor would: answers workspace/configuration, capability registration
 * and progress creation, and records the server's notifications.
 */
import { spawn, ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  ProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

export const ROOT = path.resolve(__dirname, '../..');
export const FIXTURE = path.join(ROOT, 'test/fixtures/workspace');

export interface Note {
  method: string;
  params: any;
  at: number;
}

function newestMtime(dir: string): number {
  let m = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    m = Math.max(m, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return m;
}

/** dist/server.js when it is newer than the sources (npm test builds first), else the sources via tsx. */
export function serverCommand(): string[] {
  const dist = path.join(ROOT, 'dist/server.js');
  const useDist =
    process.env.BRAID_LSP_SERVER === 'dist' ||
    (process.env.BRAID_LSP_SERVER !== 'src' &&
      existsSync(dist) &&
      existsSync(path.join(ROOT, 'dist/analysisWorker.js')) &&
      statSync(dist).mtimeMs >= newestMtime(path.join(ROOT, 'server/src')));
  return useDist ? [dist, '--stdio'] : ['--import', 'tsx', path.join(ROOT, 'server/src/server.ts'), '--stdio'];
}

export function copyFixture(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-lsp-'));
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

export class LspSession {
  readonly notes: Note[] = [];
  private listeners: (() => void)[] = [];
  readonly connection: ProtocolConnection;
  private readonly proc: ChildProcess;
  stderr = '';
  settings: Record<string, unknown>;

  constructor(
    readonly workspace: string,
    settings: Record<string, unknown> = {},
  ) {
    this.settings = settings;
    this.proc = spawn(process.execPath, serverCommand(), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stderr!.on('data', (d) => (this.stderr += d));
    this.connection = createProtocolConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    const c = this.connection;
    c.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map((i) => (i.section === 'braid' ? this.settings : null)));
    c.onRequest('client/registerCapability', (p) => {
      this.record('client/registerCapability', p);
      return null;
    });
    c.onRequest('window/workDoneProgress/create', (p) => {
      this.record('window/workDoneProgress/create', p);
      return null;
    });
    c.onRequest('workspace/codeLens/refresh', () => null);
    c.onRequest('window/showMessageRequest', (p) => {
      this.record('window/showMessageRequest', p);
      return null;
    });
    // every notification (the star handler is in vscode-jsonrpc, not in ProtocolConnection's typings)
    (c as unknown as { onNotification(h: (method: string, params: any) => void): void }).onNotification((method, params) => this.record(method, params));
    c.listen();
  }

  private record(method: string, params: any): void {
    this.notes.push({ method, params, at: Date.now() });
    for (const l of this.listeners) l();
  }

  uri(rel: string): string {
    return pathToFileURL(path.join(this.workspace, rel)).href;
  }

  /** `initializationOptions` as the client sends them, e.g. `{ trusted: false }` (Restricted Mode) */
  async initialize(initializationOptions?: Record<string, unknown>): Promise<any> {
    const res = await this.connection.sendRequest('initialize', {
      processId: process.pid,
      ...(initializationOptions ? { initializationOptions } : {}),
      rootUri: pathToFileURL(this.workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(this.workspace).href, name: 'fixture' }],
      capabilities: {
        workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true, codeLens: { refreshSupport: true } },
        window: { workDoneProgress: true },
        textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] } },
      },
    });
    await this.connection.sendNotification('initialized', {});
    return res;
  }

  /** Waits for a notification matching `pred` that arrived after `since` (an index into notes). */
  waitFor(method: string, pred: (params: any) => boolean = () => true, since = 0, timeoutMs = 60000): Promise<any> {  // a hang guard, generous for a busy machine
    return new Promise((resolve, reject) => {
      const check = () => {
        for (let k = since; k < this.notes.length; k++) {
          const n = this.notes[k];
          if (n.method === method && pred(n.params)) {
            cleanup();
            resolve(n.params);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${method}; got: ${this.notes.map((n) => n.method).join(', ')}\nserver stderr: ${this.stderr}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
      };
      const listener = () => void check();
      if (check()) return;
      this.listeners.push(listener);
    });
  }

  /** Waits until the analysis is done (a braid/status with state done after `since`). */
  analysisDone(since = 0, pred: (s: any) => boolean = () => true): Promise<any> {
    return this.waitFor('braid/status', (s) => s.state === 'done' && pred(s), since);
  }

  /** Messages shown to the user (window/showMessage notifications and requests). */
  shown(): string[] {
    return this.notes.filter((n) => n.method === 'window/showMessage' || n.method === 'window/showMessageRequest').map((n) => n.params.message);
  }

  logs(type?: number): string[] {
    return this.notes.filter((n) => n.method === 'window/logMessage' && (type === undefined || n.params.type === type)).map((n) => n.params.message);
  }

  async open(rel: string, text: string, languageId = 'java'): Promise<string> {
    const uri = this.uri(rel);
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 3000))]);
      await this.connection.sendNotification('exit');
    } catch {
      /* already gone */
    }
    await new Promise<void>((resolve) => {
      if (this.proc.exitCode !== null) return resolve();
      const t = setTimeout(() => {
        this.proc.kill('SIGKILL');
        resolve();
      }, 3000);
      this.proc.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
    this.connection.dispose();
  }
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
