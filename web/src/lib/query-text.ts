// Reading the search box's text the way the server's parser (src/search/parse.ts) splits it,
// without parsing it: the word under the caret (for suggestions) and whether `order:` is given
// (then the sort control must not send sortBy, which the server refuses alongside it).
import { METATAGS } from './metatags.ts';

/** The space-separated word around the caret: `head` (`-`, `~`, `(`), `body`, `tail` (`)`). */
export interface Word {
  start: number;
  end: number;
  head: string;
  body: string;
  tail: string;
  /** What is typed of the body up to the caret: the text suggestions are for. */
  typed: string;
}

/** The word the caret is in, or null between words, inside quotes or in its `-~(` head. */
export function wordAt(text: string, caret: number): Word | null {
  const before = text.slice(0, caret);
  // An odd number of quotes before the caret: inside a quoted value, where spaces belong to it.
  if ((before.match(/"/g) ?? []).length % 2) return null;
  const start = before.search(/\S*$/);
  const after = /^\S*/.exec(text.slice(caret))![0];
  const end = caret + after.length;
  const word = text.slice(start, end);
  const head = /^[-~(]*/.exec(word)![0];
  let body = word.slice(head.length);
  let tail = '';
  // As the parser does: a closing parenthesis is the group's only when the term has no open one for it.
  while (body.endsWith(')') && count(body, ')') > count(body, '(')) {
    tail = `)${tail}`;
    body = body.slice(0, -1);
  }
  const typed = body.slice(0, caret - start - head.length);
  if (caret - start < head.length || typed === '' || caret > start + head.length + body.length) return null;
  return { start, end, head, body, tail, typed };
}

const count = (text: string, c: string) => text.split(c).length - 1;

export interface Suggestion {
  /** What replaces the word's body. */
  text: string;
  /** Shown beside it: a tag's post count or what a metatag does. */
  note: string;
  /** A complete term: a space follows it. A metatag name is not (its value comes next). */
  complete: boolean;
}

/** Metatag names that start with what is typed, or a metatag's fixed values after `name:`. */
export function metaSuggestions(typed: string): Suggestion[] {
  const colon = typed.indexOf(':');
  if (colon < 0) {
    if (!/^[a-z_]+$/i.test(typed)) return [];
    const start = typed.toLowerCase();
    return METATAGS.filter((m) => m.name.startsWith(start)).map((m) => ({ text: `${m.name}:`, note: m.hint, complete: false }));
  }
  const name = typed.slice(0, colon);
  const meta = METATAGS.find((m) => m.name === name.toLowerCase());
  if (!meta?.values) return [];
  const value = typed.slice(colon + 1);
  // rating:safe,sk -> the values not yet in the list that start with "sk".
  const comma = meta.list ? value.lastIndexOf(',') + 1 : 0;
  const given = value.slice(0, comma);
  const last = value.slice(comma).toLowerCase();
  const taken = given.toLowerCase().split(',');
  return meta.values.filter((v) => v.startsWith(last) && !taken.includes(v)).map((v) => ({ text: `${name}:${given}${v}`, note: '', complete: true }));
}

/** Whether the tag search is worth asking for: a plain name, not a metatag, wildcard or quote. */
export function tagLike(typed: string): boolean {
  return typed.length > 0 && !/[:*"]/.test(typed);
}

/** The value of `order:` in the query, or null. Negated or in parentheses counts too: the server then says why. */
export function queryOrder(text: string): string | null {
  // Quoted values are masked first: title:"by order:likes" gives no order.
  const masked = text.replace(/"[^"]*"/g, (q) => `"${'_'.repeat(q.length - 2)}"`);
  const m = /(?:^|\s)[-~(]*order:/i.exec(masked);
  if (!m) return null;
  const value = /^("[^"]*"|[^\s)]*)/.exec(text.slice(m.index + m[0].length))![0];
  return value.replace(/"/g, '').toLowerCase();
}
