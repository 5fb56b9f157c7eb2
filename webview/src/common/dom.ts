/**
 * DOM helpers. Every string from a trace goes through textContent or
 * setAttribute — never innerHTML — so names like `<img onerror=…>` stay text.
 */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs | null, ...children: (Child | Child[])[]): HTMLElement;
export function h(tag: string, attrs?: Attrs | null, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) throw new Error('inline handlers are not allowed');
    el.setAttribute(k, v === true ? '' : String(v));
  }
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** basename of a path with either separator */
export function basename(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i >= 0 ? p.slice(i + 1) : p;
}

/** An R/W (or other kind) chip; the letter is text, colour comes from CSS. */
export function chip(kind: string, extra?: string): HTMLElement {
  const c = h('span', { class: `chip chip-${/^[A-Z]+$/.test(kind) ? kind : 'X'}`, title: kindTitle(kind) }, kind);
  if (extra) c.append(h('sub', null, extra));
  return c;
}

export function kindTitle(kind: string): string {
  switch (kind) {
    case 'R': return 'read';
    case 'W': return 'write';
    case 'ACQ': return 'lock acquire';
    case 'REL': return 'lock release';
    case 'START': return 'thread start';
    case 'JOIN': return 'thread join';
    case 'END': return 'thread end';
    case 'ENTER': return 'method enter';
    case 'EXIT': return 'method exit';
    default: return kind;
  }
}

/** A link-like button that opens a source location. */
export function locationButton(file: string, line: number, label?: string): HTMLButtonElement {
  const b = h('button', { class: 'loc', type: 'button', title: `${file}:${line}` }, label ?? `${basename(file)}:${line}`);
  return b;
}

export function fmtScore(s: number): string {
  return Number.isFinite(s) ? s.toFixed(3) : '—';
}

export function debounce<A extends unknown[]>(fn: (...a: A) => void, ms: number): (...a: A) => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  return (...a: A) => {
    if (t) clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
}

/** Stable categorical colour index for a thread id (CSS classes thread-0..thread-9). */
export function threadColorClass(id: number): string {
  return `thread-${((id % 10) + 10) % 10}`;
}
