/**
 * PostgreSQL named statements for the queries of fixed shape (prepared.ts). Sent by name, a
 * statement is parsed once per connection, and after a few runs PostgreSQL may plan it once too
 * (plan_cache_mode auto): the backends' CPU a list request or a post detail costs about halves
 * (docs/benchmarks.md). Only prepared.ts's queries are named. They look rows up by keys (ids,
 * names, a sequence number), where one plan suits every value; a search's own SQL stays unnamed
 * and is planned for its values each time, since a tag with a million posts and one with three
 * want different plans. The set is bounded: a connection keeps its named statements until it closes.
 */
const names = new Map<string, string>();
const MAX_NAMED = 1000;

/** Marks a compiled query's text as one to send by name. */
export function nameStatement(text: string): void {
  if (!names.has(text) && names.size < MAX_NAMED) names.set(text, `ib${names.size}`);
}

/** The name `text` goes by, if it has one. */
export const statementName = (text: string): string | undefined => names.get(text);
