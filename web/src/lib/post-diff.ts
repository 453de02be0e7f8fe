// What one version of a post changed from the one before: the tags added and removed, and the
// other fields as old -> new. Version 1 is compared with nothing: its tags are all added and its
// fields given as they were.

/** The fields of a version (GET /api/posts/<id>/history) a diff compares. */
export interface VersionFields {
  title: string;
  tags: string[];
  contentRating: string;
  source: string | null;
  parentId: string | null;
}

export interface FieldChange {
  label: string;
  /** null for version 1 (nothing before it). */
  from: string | null;
  to: string;
}

export interface VersionDiff {
  added: string[];
  removed: string[];
  changes: FieldChange[];
}

const FIELDS = [
  { key: 'title', label: 'title' },
  { key: 'contentRating', label: 'rating' },
  { key: 'source', label: 'source' },
  { key: 'parentId', label: 'parent' },
] as const;

const shown = (key: (typeof FIELDS)[number]['key'], value: string | null): string => (value === null ? 'none' : key === 'parentId' ? `#${value}` : value);

export function diffVersions(before: VersionFields | null, after: VersionFields): VersionDiff {
  const had = new Set(before?.tags ?? []);
  const has = new Set(after.tags);
  const changes: FieldChange[] = [];
  for (const f of FIELDS) {
    const [old, now] = [before ? before[f.key] : null, after[f.key]];
    if (before ? old === now : now === null) continue;
    changes.push({ label: f.label, from: before ? shown(f.key, old) : null, to: shown(f.key, now) });
  }
  return { added: after.tags.filter((t) => !had.has(t)), removed: (before?.tags ?? []).filter((t) => !has.has(t)), changes };
}
