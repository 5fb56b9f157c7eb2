/**
 * README.md and docs/*.md stay true: every relative link points to a file that exists, and every
 * `#anchor` to a heading of that file (GitHub's slugs: lower case, punctuation dropped, spaces to
 * hyphens, repeated headings numbered -1, -2, …).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubSlug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Markdown links outside code fences and inline code: [text](target). */
function links(file: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let fenced = false;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) fenced = !fenced;
      if (fenced) return;
      const plain = text.replace(/`[^`]*`/g, '');
      for (const m of plain.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ target: m[1], line: i + 1 });
    });
  return out;
}

test('GitHub heading slugs', () => {
  assert.equal(githubSlug('`braid pinpoint [options] -- <command...>`'), 'braid-pinpoint-options----command');
  assert.equal(githubSlug('The algorithm (seed 004)'), 'the-algorithm-seed-004');
  assert.equal(githubSlug('Measured (2026-11-23, second session)'), 'measured-2026-11-23-second-session');
});

test('README.md and docs/*.md: relative links and anchors resolve', () => {
  const files = [path.join(root, 'README.md'), ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(root, 'docs', f))];
  const broken: string[] = [];
  for (const file of files) {
    for (const { target, line } of links(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:, vscode: …
      const [rel, anchor] = target.split('#');
      const dest = rel ? path.resolve(path.dirname(file), decodeURIComponent(rel)) : file;
      const where = `${path.relative(root, file)}:${line}: ${target}`;
      if (!existsSync(dest)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor.toLowerCase())) broken.push(`${where} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
