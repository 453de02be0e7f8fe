// The module graph of src/: no file reaches itself through its imports (type imports included: a
// circle of types still ties two files' designs together).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', 'src');

function sources(): string[] {
  return (fs.readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => path.join(SRC, f));
}

/** The src/ files one file imports (static and dynamic, relative specifiers only). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const target = path.resolve(path.dirname(file), m[1] ?? m[2]);
    if (target.startsWith(SRC) && fs.existsSync(target)) found.push(target);
  }
  return found;
}

/** Every cycle, as the list of files around it (each reported once, from its smallest member). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (start: string, node: string, trail: string[], seen: Set<string>) => {
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        const ring = [...trail];
        const min = [...ring].sort()[0];
        const at = ring.indexOf(min);
        const norm = [...ring.slice(at), ...ring.slice(0, at)];
        found.set(norm.join(' -> '), norm);
      } else if (!seen.has(next) && next > start) {
        seen.add(next);
        visit(start, next, [...trail, next], seen);
      }
    }
  };
  for (const node of graph.keys()) visit(node, node, [node], new Set([node]));
  return [...found.values()];
}

test('no import circle in src/', () => {
  const graph = new Map(sources().map((f) => [f, importsOf(f)]));
  const rings = cycles(graph).map((r) => r.map((f) => path.relative(SRC, f)).join(' -> '));
  assert.deepEqual(rings, []);
});
