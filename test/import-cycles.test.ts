// The folders of src/ depend on each other in one direction only (issue 58): a feature module, the
// search, core, db, storage, jobs... may import from below, never from something that imports
// them back. The files at src/'s top put the app together and may import anything. Type-only
// imports count: a type is a dependency too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', 'src');

/** The folder a file of src/ belongs to (`core`, `modules/posts`...), or null for the files at the top. */
function folderOf(rel: string): string | null {
  const parts = rel.split(path.sep);
  if (parts.length === 1) return null;
  return parts[0] === 'modules' ? `modules/${parts[1]}` : parts[0];
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Edges between folders, each with the imports that make it (tests left out: they may reach anywhere). */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  const files = fs
    .readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const file of files) {
    const from = folderOf(file);
    if (from === null) continue;
    const text = fs.readFileSync(path.join(SRC, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const target = path.relative(SRC, path.resolve(SRC, path.dirname(file), m[1] ?? m[2]));
      if (target.startsWith('..')) continue;
      const to = folderOf(target);
      if (to === null || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${file} -> ${target}`]);
    }
  }
  return graph;
}

/** The strongly connected groups of more than one folder (Tarjan): each is a cycle. */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) group.push(w);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

test('no import cycle between the folders of src/', () => {
  const graph = folderGraph();
  assert.ok(graph.size > 10, 'the folders were read');
  const found = cycles(graph).map((group) => {
    const edges = group.flatMap((a) => [...(graph.get(a) ?? [])].filter(([b]) => group.includes(b)).map(([b, via]) => `  ${a} -> ${b}: ${via.join(', ')}`));
    return `${group.join(', ')}\n${edges.join('\n')}`;
  });
  assert.deepEqual(found, [], `folders that import each other:\n${found.join('\n')}`);
});

test('core knows no feature: nothing in src/core imports a module, the search, or the jobs', () => {
  const graph = folderGraph();
  const above = [...(graph.get('core') ?? [])].filter(([to]) => to.startsWith('modules/') || to === 'search' || to === 'jobs' || to === 'cli');
  assert.deepEqual(
    above.map(([to, via]) => `${to}: ${via.join(', ')}`),
    [],
  );
});

test('the search is whole: nothing in src/search imports a feature module', () => {
  const graph = folderGraph();
  const features = [...(graph.get('search') ?? [])].filter(([to]) => to.startsWith('modules/') || to === 'jobs' || to === 'cli');
  assert.deepEqual(
    features.map(([to, via]) => `${to}: ${via.join(', ')}`),
    [],
  );
});
