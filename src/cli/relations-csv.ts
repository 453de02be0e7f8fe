export interface Relation {
  kind: 'alias' | 'implication';
  from: string;
  to: string;
  /** Its line in the file (from 1), for messages. */
  line?: number;
}

const KINDS: Record<string, Relation['kind']> = { alias: 'alias', implication: 'implication', implicate: 'implication', implies: 'implication' };

/** One CSV field: surrounding spaces dropped, and the quotes around a quoted one. */
const field = (raw: string) => raw.trim().replace(/^"(.*)"$/, '$1');

/**
 * The relations of a CSV file, one a line: `from,to,kind`, kind `alias` or `implication`. Blank
 * lines, `#` comments and a `from,to,kind` header are skipped. Tag names hold no commas (tags
 * are written comma-separated), so a line is split at its commas. Every bad line is named at
 * once, so a file is fixed in one go.
 */
export function parseRelations(text: string | null): { relations: Relation[] } | { problems: string[] } | null {
  if (text === null) return null;
  const relations: Relation[] = [];
  const problems: string[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const cells = raw.split(',').map(field);
    if (relations.length === 0 && problems.length === 0 && cells.join(',').toLowerCase() === 'from,to,kind') continue;
    const kind = KINDS[cells[2]?.toLowerCase() ?? ''];
    if (cells.length !== 3 || !cells[0] || !cells[1]) problems.push(`line ${line}: expected from,to,kind (got '${raw.trim()}')`);
    else if (!kind) problems.push(`line ${line}: kind must be alias or implication (got '${cells[2]}')`);
    else relations.push({ kind, from: cells[0], to: cells[1], line });
  }
  if (problems.length) return { problems };
  return relations.length ? { relations } : { problems: ['no relations in the file'] };
}
