/**
 * VS Code's Testing API (tests.createTestController, TestItem collections, run profiles, test runs,
 * TestMessage) and the few workspace APIs client/src/testing.ts uses besides, added to the `vscode`
 * mock (vscodeMock.ts). Call `useTestingMock(folders)` before requiring the module under test:
 * `import * as vscode` copies the mock's exports when it is first required.
 */
import * as mock from './vscodeMock';

type Listener = (e: unknown) => void;

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === 'number') {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}
export class Location {
  readonly range: Range;
  constructor(
    readonly uri: mock.Uri,
    at: Range | Position,
  ) {
    this.range = at instanceof Position ? new Range(at, at) : at;
  }
}
export class TestMessage {
  location?: Location;
  expectedOutput?: string;
  actualOutput?: string;
  contextValue?: string;
  constructor(public message: string | mock.MarkdownString) {}
  static diff(message: string | mock.MarkdownString, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}
export const TestRunProfileKind = { Run: 1, Debug: 2, Coverage: 3 };

export interface MockTestItem {
  id: string;
  label: string;
  uri?: mock.Uri;
  range?: Range;
  description?: string;
  parent?: MockTestItem;
  children: MockCollection;
}

export class MockCollection {
  private readonly map = new Map<string, MockTestItem>();
  constructor(private readonly owner: MockTestItem | undefined) {}
  get size(): number {
    return this.map.size;
  }
  add(item: MockTestItem): void {
    item.parent = this.owner;
    this.map.set(item.id, item);
  }
  delete(id: string): void {
    this.map.delete(id);
  }
  get(id: string): MockTestItem | undefined {
    return this.map.get(id);
  }
  replace(items: MockTestItem[]): void {
    this.map.clear();
    for (const i of items) this.add(i);
  }
  forEach(fn: (item: MockTestItem, c: MockCollection) => void): void {
    for (const i of [...this.map.values()]) fn(i, this);
  }
  all(): MockTestItem[] {
    return [...this.map.values()];
  }
}

/** What a test run was told, in order: [what, item id, detail]. */
export class MockTestRun {
  readonly events: [string, string, unknown?][] = [];
  readonly output: { text: string; test?: string }[] = [];
  ended = false;
  constructor(
    readonly request: unknown,
    readonly name?: string,
  ) {}
  enqueued(i: MockTestItem) {
    this.events.push(['enqueued', i.id]);
  }
  started(i: MockTestItem) {
    this.events.push(['started', i.id]);
  }
  skipped(i: MockTestItem) {
    this.events.push(['skipped', i.id]);
  }
  passed(i: MockTestItem, duration?: number) {
    this.events.push(['passed', i.id, duration]);
  }
  failed(i: MockTestItem, messages: TestMessage | TestMessage[], duration?: number) {
    this.events.push(['failed', i.id, Array.isArray(messages) ? messages : [messages]]);
    void duration;
  }
  errored(i: MockTestItem, messages: TestMessage | TestMessage[]) {
    this.events.push(['errored', i.id, Array.isArray(messages) ? messages : [messages]]);
  }
  appendOutput(text: string, _location?: unknown, test?: MockTestItem) {
    this.output.push({ text, test: test?.id });
  }
  end() {
    this.ended = true;
  }
}

export interface MockProfile {
  label: string;
  kind: number;
  isDefault: boolean;
  runHandler: (request: unknown, token: unknown) => Promise<void> | void;
}

export class MockController {
  readonly items = new MockCollection(undefined);
  readonly profiles: MockProfile[] = [];
  readonly runs: MockTestRun[] = [];
  resolveHandler?: (item: MockTestItem | undefined) => Promise<void> | void;
  refreshHandler?: () => Promise<void> | void;
  disposed = false;
  constructor(
    readonly id: string,
    readonly label: string,
  ) {}
  createTestItem(id: string, label: string, uri?: mock.Uri): MockTestItem {
    const item: MockTestItem = { id, label, uri, children: undefined as unknown as MockCollection };
    item.children = new MockCollection(item);
    return item;
  }
  createRunProfile(label: string, kind: number, runHandler: MockProfile['runHandler'], isDefault = false): MockProfile {
    const p = { label, kind, runHandler, isDefault };
    this.profiles.push(p);
    return p;
  }
  createTestRun(request: unknown, name?: string): MockTestRun {
    const r = new MockTestRun(request, name);
    this.runs.push(r);
    return r;
  }
  dispose() {
    this.disposed = true;
  }
}

export const tests = {
  controllers: [] as MockController[],
  createTestController(id: string, label: string): MockController {
    const c = new MockController(id, label);
    tests.controllers.push(c);
    return c;
  },
};

/** A cancellation token the test cancels. */
export function cancellation(): { token: { isCancellationRequested: boolean; onCancellationRequested(l: () => void): { dispose(): void } }; cancel(): void } {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested(l: () => void) {
      listeners.push(l);
      return { dispose() {} };
    },
  };
  return {
    token,
    cancel() {
      token.isCancellationRequested = true;
      for (const l of listeners) l();
    },
  };
}

/** vscode.CancellationTokenSource over cancellation() */
export class CancellationTokenSource {
  private readonly c = cancellation();
  get token() {
    return this.c.token;
  }
  cancel(): void {
    if (!this.c.token.isCancellationRequested) this.c.cancel();
  }
  dispose(): void {}
}

/** vscode.TestRunRequest */
export class TestRunRequest {
  constructor(
    readonly include?: unknown[],
    readonly exclude?: unknown[],
    readonly profile?: unknown,
  ) {}
}

/** file watchers and document events the test fires */
export const events = {
  watcher: { create: [] as Listener[], change: [] as Listener[], delete: [] as Listener[] },
  open: [] as Listener[],
  change: [] as Listener[],
};

let installed = false;
export function useTestingMock(folders: string[]): void {
  mock.useVscodeMock(folders);
  if (installed) return;
  installed = true;
  // the module object `require('vscode')` answers with (not this file's import of it, a copy)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  Object.assign(require('./vscodeMock') as Record<string, unknown>, { tests, TestMessage, TestRunProfileKind, Location, Range, Position, CancellationTokenSource, TestRunRequest });
  const md = mock.MarkdownString.prototype as unknown as { appendText?(s: string): unknown; value: string };
  if (!md.appendText) {
    md.appendText = function (this: { value: string }, s: string) {
      this.value += s.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
      return this;
    };
  }
  const ws = mock.workspace as unknown as Record<string, unknown>;
  const getConfiguration = mock.workspace.getConfiguration.bind(mock.workspace);
  const on = (list: Listener[]) => (l: Listener) => {
    list.push(l);
    return { dispose() {} };
  };
  Object.assign(ws, {
    textDocuments: [],
    onDidOpenTextDocument: on(events.open),
    onDidChangeTextDocument: on(events.change),
    createFileSystemWatcher: () => ({
      onDidCreate: on(events.watcher.create),
      onDidChange: on(events.watcher.change),
      onDidDelete: on(events.watcher.delete),
      dispose() {},
    }),
    // inspect: a key in the mock's settings counts as set by the user (global)
    getConfiguration(section: string) {
      const c = getConfiguration(section);
      const full = (key: string) => (section === 'braid' ? key : `${section.replace(/^braid\./, '')}.${key}`);
      return { ...c, inspect: (key: string) => ({ key, globalValue: full(key) in mock.settings ? mock.settings[full(key)] : undefined }) };
    },
  });
}
