import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** The one place that knows the two engines differ. */
export type DialectName = 'sqlite' | 'postgres';

/** Case-insensitive substring match; `needle` is matched literally (%, _ and \ escaped). */
export function containsInsensitive(dialect: DialectName, column: Expression<string>, needle: string): RawBuilder<boolean> {
  const pattern = `%${escapeLike(needle.toLowerCase())}%`;
  return dialect === 'postgres' ? sql<boolean>`${column} ILIKE ${pattern} ESCAPE '\\'` : sql<boolean>`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}

/** Case-insensitive prefix match, same escaping as containsInsensitive. */
export function startsWithInsensitive(dialect: DialectName, column: Expression<string>, prefix: string): RawBuilder<boolean> {
  const pattern = `${escapeLike(prefix.toLowerCase())}%`;
  return dialect === 'postgres' ? sql<boolean>`${column} ILIKE ${pattern} ESCAPE '\\'` : sql<boolean>`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}

/** Case-insensitive match of the whole text against a pattern whose `*` stands for any run of characters (Danbooru's `name_matches`); nothing else is special. */
export function globInsensitive(dialect: DialectName, column: Expression<string>, glob: string): RawBuilder<boolean> {
  const pattern = glob.toLowerCase().split('*').map(escapeLike).join('%');
  return dialect === 'postgres' ? sql<boolean>`${column} ILIKE ${pattern} ESCAPE '\\'` : sql<boolean>`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Whether an error from either driver is a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Whether SQLite's FTS5 trigram index can answer a title substring (3 characters or more). */
export function usesTitleIndex(dialect: DialectName, needle: string): boolean {
  return dialect === 'sqlite' && [...needle].length >= 3;
}

/** An FTS5 query matching `needle` literally, as one phrase. */
export function ftsPhrase(needle: string): string {
  return `"${needle.replace(/"/g, '""')}"`;
}

/**
 * Title contains `needle`, case-insensitively, matched literally. SQLite: through the FTS5 trigram
 * index when the needle has 3 or more characters (shorter ones scan); PostgreSQL: ILIKE, which the
 * pg_trgm index serves.
 */
export function titleContains(dialect: DialectName, id: Expression<number>, title: Expression<string>, needle: string): RawBuilder<boolean> {
  if (usesTitleIndex(dialect, needle)) {
    const phrase = ftsPhrase(needle);
    return sql<boolean>`${id} IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ${phrase})`;
  }
  return containsInsensitive(dialect, title, needle);
}

/**
 * A column reference SQLite will not use an index for (the unary `+` idiom), for a filter whose
 * index would lead the planner to sort many rows instead of walking the index of the order.
 * PostgreSQL costs its plans from fuller statistics and gets the plain column.
 */
export function notIndexed(dialect: DialectName, column: Expression<unknown>): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`+${column}` : sql`${column}`;
}

/** Whether a space-separated list of names (posts.tag_string) holds `name` as a whole entry. */
export function listsTag(dialect: DialectName, list: Expression<string>, name: string): RawBuilder<SqlBool> {
  const padded = sql`(' ' || ${list} || ' ')`;
  return dialect === 'postgres' ? sql<SqlBool>`strpos(${padded}, ${` ${name} `}) > 0` : sql<SqlBool>`instr(${padded}, ${` ${name} `}) > 0`;
}

/** A text value as a JSON string literal (quotes, backslashes and control characters escaped). */
export function jsonQuote(dialect: DialectName, text: Expression<string>): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`to_json(${text})::text` : sql<string>`json_quote(${text})`;
}

/**
 * Milliseconds since the epoch as ISO 8601 UTC with milliseconds, as JavaScript's toISOString
 * writes it (`2026-11-22T10:15:30.123Z`). Whole seconds and the milliseconds are formatted apart,
 * in integers, so no floating-point rounding can move a millisecond.
 */
export function isoMillis(dialect: DialectName, ms: Expression<number>): RawBuilder<string> {
  const millis = sql`'.' || ${dialect === 'postgres' ? sql`lpad((${ms} % 1000)::text, 3, '0')` : sql`substr('00' || (${ms} % 1000), -3)`} || 'Z'`;
  return dialect === 'postgres'
    ? sql<string>`to_char(to_timestamp(${ms} / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || ${millis}`
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%S', ${ms} / 1000, 'unixepoch') || ${millis}`;
}

/**
 * `column` is one of a list given as one parameter (listParam): one statement text whatever the
 * list's length, so a prepared statement serves every call.
 */
export function oneOf(dialect: DialectName, column: Expression<unknown>, list: unknown): RawBuilder<SqlBool> {
  return dialect === 'sqlite' ? sql<SqlBool>`${column} IN (SELECT value FROM json_each(${list}))` : sql<SqlBool>`${column} = ANY(${list})`;
}

/** A list of numbers or strings as the one parameter oneOf takes: JSON text for SQLite, an array for PostgreSQL. */
export function listParam(dialect: DialectName, values: readonly (number | string)[]): unknown {
  return dialect === 'sqlite' ? JSON.stringify(values) : values;
}

/**
 * An aggregate joining `value` over the rows with commas, as one text (handing rows over one by
 * one costs several times more in better-sqlite3). SQLite joins them in the order it meets
 * them (a subquery's ORDER BY); PostgreSQL in `order` when given.
 */
export function joinedText(dialect: DialectName, value: Expression<unknown>, order?: RawBuilder<unknown>): RawBuilder<string | null> {
  return dialect === 'sqlite'
    ? sql<string | null>`group_concat(${value})`
    : sql<string | null>`string_agg((${value})::text, ','${order ? sql` ORDER BY ${order}` : sql``})`;
}

/** The character fieldsText puts between values (unit separator): no name, path or number holds it. */
export const FIELD_SEPARATOR = '\x1f';

/**
 * Several values of a row as one text, separated by FIELD_SEPARATOR, NULL as an empty text: a row
 * read as one string instead of an object of many columns (which costs better-sqlite3 several times more).
 */
export function fieldsText(dialect: DialectName, values: Expression<unknown>[]): RawBuilder<string> {
  // One concat_ws makes the text once; a chain of `||` copies the text made so far at each step.
  const sep = dialect === 'sqlite' ? sql`char(31)` : sql`chr(31)`;
  return sql<string>`concat_ws(${sep}, ${sql.join(values.map((v) => sql`coalesce(CAST(${v} AS text), '')`))})`;
}
