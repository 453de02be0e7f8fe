/**
 * "Did you mean ...?" for a name the server does not know (a metatag, an order, a query
 * parameter, a choice): the known name nearest to it by edits (a letter added, dropped, changed or
 * two swapped), when it is near enough to be a typo.
 */

/** Edits between two words (Damerau-Levenshtein, adjacent swaps counted once), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[x.length][y.length];
}

/** The candidate nearest to `word`, within a third of its length in edits (at least 1, at most 3); null when none is. */
export function nearest(word: string, candidates: Iterable<string>): string | null {
  // Past this length a word is no typo of a name: no need to measure it.
  if (word.length > 64) return null;
  const most = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = most + 1;
  for (const c of candidates) {
    const n = distance(word, c);
    if (n < bestDistance && n > 0) [best, bestDistance] = [c, n];
    if (n === 0 && c !== word) return c; // the same name in other case
  }
  return best;
}

/** `; did you mean <prefix><name>?` for the nearest candidate, or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>, prefix = ''): string {
  const found = nearest(word, candidates);
  return found === null ? '' : `; did you mean ${prefix}${found}?`;
}
