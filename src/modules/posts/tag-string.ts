/**
 * Each post keeps its tag names in one column (`posts.tag_string`: sorted, space-separated, as
 * Danbooru does), so a page of posts reads its tags with its rows instead of a join and a sort
 * over post_tags. Tag names never contain whitespace. post_tags stays the source of truth for
 * filtering; every write that changes a post's tags rewrites the string in the same transaction.
 */

/** Names in code-unit order (the same on both engines), joined by one space. */
export function toTagString(names: Iterable<string>): string {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(' ');
}

export function fromTagString(text: string): string[] {
  return text === '' ? [] : text.split(' ');
}
