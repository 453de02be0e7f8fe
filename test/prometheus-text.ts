// Prometheus' text exposition format (0.0.4), read strictly: what a Prometheus server would refuse
// fails here with the line. The npm parser (parse-prometheus-text-format) reads the same text as a
// second, independent reader; it merges a labelled histogram's series into one (1.1.1), so the
// series themselves are read here. https://prometheus.io/docs/instrumenting/exposition_formats/
import parseWithPackage from 'parse-prometheus-text-format';

export type Labels = Record<string, string>;
export interface Sample {
  name: string;
  labels: Labels;
  value: number;
}
export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** The families of a scrape, by name; throws on anything the format does not allow. */
export function parsePrometheus(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the text must end with a line feed');
  const families = new Map<string, Family>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: Family | null = null;
  const family = (name: string): Family => {
    if (current?.name === name) return current;
    if (current) finished.add(current.name);
    if (finished.has(name)) throw new Error(`the lines of ${name} are not together`);
    current = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
    families.set(name, current);
    return current;
  };
  for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
    const where = `line ${i + 1}: ${line}`;
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!NAME.test(name)) throw new Error(`bad metric name, ${where}`);
      const f = family(name);
      if (f.samples.length > 0) throw new Error(`${kind} after samples, ${where}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`bad type, ${where}`);
        f.type = rest as Family['type'];
      } else f.help = rest.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = parseSample(line, where);
    const belongs = (f: Family) => SUFFIXES[f.type].some((s) => f.name + s === sample.name);
    const f = current && belongs(current) ? current : family(sample.name);
    if (!belongs(f)) throw new Error(`${sample.name} does not belong to the ${f.type} ${f.name}, ${where}`);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`the same series twice, ${where}`);
    seen.add(key);
    if (f.type === 'counter' && !(sample.value >= 0)) throw new Error(`a counter below 0, ${where}`);
    f.samples.push(sample);
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  crossCheck(text, families);
  return families;
}

function parseSample(line: string, where: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) throw new Error(`not a sample, ${where}`);
  const labels: Labels = {};
  let rest = m[3] ?? '';
  while (rest !== '') {
    const l = /^([^=]+)="((?:[^"\\]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (!l || !LABEL.test(l[1])) throw new Error(`bad label at "${rest}", ${where}`);
    if (l[1] in labels) throw new Error(`label ${l[1]} twice, ${where}`);
    labels[l[1]] = l[2].replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(l[0].length);
  }
  return { name: m[1], labels, value: parseFloatAsGo(m[4], where) };
}

/** A value as Go's strconv.ParseFloat reads it (the format's rule): decimal or exponent notation, and NaN, Inf, Infinity in any case, signed. */
function parseFloatAsGo(raw: string, where: string): number {
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(raw);
  if (special) return special[2].toLowerCase() === 'nan' ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`bad value, ${where}`);
  return Number(raw);
}

/** Each labelled series of a histogram: buckets that only grow, up to +Inf, which is its count. */
function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const one = series.get(key) ?? { buckets: [] };
    series.set(key, one);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      one.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    } else if (s.name.endsWith('_count')) one.count = s.value;
  }
  for (const [key, { buckets, count }] of series) {
    const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
    if (sorted.at(-1)?.[0] !== Infinity) throw new Error(`${f.name} ${key}: no +Inf bucket`);
    for (let i = 1; i < sorted.length; i++) if (sorted[i][1] < sorted[i - 1][1]) throw new Error(`${f.name} ${key}: buckets shrink`);
    if (sorted.at(-1)![1] !== count) throw new Error(`${f.name} ${key}: the +Inf bucket is not the count`);
  }
}

/** The npm parser must read the same families, of the same types. */
function crossCheck(text: string, families: Map<string, Family>): void {
  const theirs = parseWithPackage(text).map((f) => `${f.name}:${f.type.toLowerCase()}`);
  const ours = [...families.values()].map((f) => `${f.name}:${f.type}`);
  if (JSON.stringify(theirs) !== JSON.stringify(ours)) throw new Error(`parse-prometheus-text-format reads other families: ${theirs} vs ${ours}`);
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none), over one or more scrapes. */
export function sampleSum(scrapes: Map<string, Family>[], name: string, labels: Labels = {}): number {
  let sum = 0;
  for (const families of scrapes)
    for (const f of families.values())
      for (const s of f.samples) if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  return sum;
}

/** The samples named `name`, over one or more scrapes. */
export const samplesOf = (scrapes: Map<string, Family>[], name: string): Sample[] =>
  scrapes.flatMap((families) => [...families.values()].flatMap((f) => f.samples.filter((s) => s.name === name)));
