/**
 * Suspension points of the modules outside the include list (issue 40; docs/recorder-node.md
 * "Forcing", "Boundaries outside the include list"). In a forcing run the hook (hook.ts, loader.ts)
 * gives every JavaScript file that the recording's include list leaves out — the driver, the test
 * files, the packages not included — this transform instead of the recording's: only its `await`s
 * are rewritten, nothing is recorded (no access, no frame, no task, no noise), so that forcing knows
 * where a task last gave up the event loop before an included module's synchronous access:
 *
 *   `await e` → `__bC(await __bA(e, S), S)`
 *
 * `__bA` (runtime `ab`) is the suspension point of the task that awaits: forcing counts the pass and
 * may hold the task there (a place where earlier runs of the group saw a plan access follow);
 * `__bC` (runtime `ac`) runs first thing in the continuation, in whatever task the runtime gives it,
 * and makes the await its boundary again (another flow of the same task may have passed other
 * suspension points meanwhile). Outside a forcing run, or without a runtime, both return their value.
 * No line break is added or removed. Sites are registered with `__braid.mod` as the recording's
 * transform does (file, line, function), with no variables.
 */
import { parse, Node as AcornNode } from 'acorn';
import MagicString from 'magic-string';
import { InlineSourceMap } from './inlineSourceMap';
import { lineIndex } from '../discovery/lineIndex';

/* eslint-disable @typescript-eslint/no-explicit-any */
type N = AcornNode & Record<string, any>;

/** A file bigger than this is left as it is (a bundled compiler would cost a parse per forcing run). */
export const MAX_BOUNDARY_SOURCE = 1_000_000;

export interface BoundaryResult {
  code: string;
  /** the awaits rewritten */
  sites: number;
}

function isFunction(n: N): boolean {
  return n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';
}

/** A function's name for the boundaries file: its own, its variable's, its method's, else `<outer>/<anonymous>`. */
function nameOf(n: N, parent: N | null, outer: string, className: string | undefined): string {
  if (n.id?.name) return n.id.name;
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  if (parent?.type === 'AssignmentExpression' && parent.left.type === 'Identifier') return parent.left.name;
  if (parent?.type === 'AssignmentExpression' && parent.left.type === 'MemberExpression' && !parent.left.computed && parent.left.property.type === 'Identifier') return parent.left.property.name;
  if ((parent?.type === 'MethodDefinition' || parent?.type === 'Property') && !parent.computed && parent.key?.type === 'Identifier') {
    return parent.type === 'MethodDefinition' && className ? `${className}.${parent.key.name}` : parent.key.name;
  }
  return outer && outer !== '<module>' ? `${outer}/<anonymous>` : '<anonymous>';
}

/**
 * The module's awaits made suspension points of forcing; undefined when it has none (the file is left
 * as it is). Throws a SyntaxError when acorn cannot parse it.
 */
export function instrumentBoundaries(code: string, o: { file: string; module: boolean }): BoundaryResult | undefined {
  if (code.length > MAX_BOUNDARY_SOURCE || !code.includes('await')) return undefined;
  const ast = parse(code, {
    ecmaVersion: 'latest',
    sourceType: o.module ? 'module' : 'script',
    allowHashBang: true,
    allowReturnOutsideFunction: !o.module,
    allowAwaitOutsideFunction: o.module,
  }) as N;
  const s = new MagicString(code);
  const positionOf = lineIndex(code);
  const mapper = new InlineSourceMap(code);
  let mappedFile: string | undefined;
  const locs: (number | string)[] = [];

  const walk = (n: N, parent: N | null, fn: string, className: string | undefined): void => {
    let inner = fn;
    if (isFunction(n)) inner = nameOf(n, parent, fn, className);
    const cls = n.type === 'ClassDeclaration' || n.type === 'ClassExpression' ? (n.id?.name ?? className) : className;
    // children first: an await inside another's operand ends where it does, and its text goes first
    for (const key of Object.keys(n)) {
      if (key === 'type' || key === 'start' || key === 'end' || key === 'loc' || key === 'range') continue;
      const v = n[key];
      if (Array.isArray(v)) {
        for (const c of v) if (c && typeof c.type === 'string') walk(c, n, inner, cls);
      } else if (v && typeof v.type === 'string') walk(v, n, inner, cls);
    }
    if (n.type !== 'AwaitExpression') return;
    const at = positionOf(n.start);
    let line = at.line + 1;
    if (mapper.active) {
      const m = mapper.map(line, at.character);
      line = m.line;
      if (m.source && !mappedFile) mappedFile = m.source;
    }
    locs.push(line, fn);
    const k = locs.length / 2 - 1;
    s.prependRight(n.start, '__bC(');
    s.prependRight(n.argument.start, '__bA(');
    s.appendLeft(n.argument.end, `,__bl+${k})`);
    s.appendLeft(n.end, `,__bl+${k})`);
  };
  walk(ast, null, '<module>', undefined);
  if (locs.length === 0) return undefined;

  // the prelude: after a hashbang line and the directive prologue, on an existing line
  let at = 0;
  if (code.startsWith('#!')) {
    const nl = code.indexOf('\n');
    at = nl < 0 ? code.length : nl + 1;
  }
  let directive = false;
  for (const st of ast.body as N[]) {
    if (st.type === 'ExpressionStatement' && typeof st.directive === 'string') {
      at = st.end;
      directive = true;
    } else break;
  }
  const sep = directive ? (code[at - 1] === ';' ? ' ' : '; ') : '';
  const reg = `__bB.mod(${JSON.stringify(o.file)}, ${JSON.stringify(locs)}, [], ${JSON.stringify(mappedFile ?? null)})[0]`;
  s.prependLeft(at, `${sep}const __bB = globalThis.__braid, __bl = __bB && __bB.ab ? ${reg} : 0, __bA = __bB && __bB.ab ? __bB.ab : (v) => v, __bC = __bB && __bB.ac ? __bB.ac : (v) => v; `);
  return { code: s.toString(), sites: locs.length / 2 };
}
