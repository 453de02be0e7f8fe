/** Ascending numbers of names (positions in the list the index was built from). */
export type NameIds = Uint16Array | Uint32Array;

const NONE = new Uint16Array(0);
/** Grams this long or shorter are indexed; a longer needle is checked in its rarest one's list. */
const GRAM = 3;

/**
 * Which names contain a text, found without reading the names: for every text of 1 to 3
 * characters (a gram) that occurs in them, the ascending numbers of the names holding it, and of
 * those starting with it. A needle of up to 3 characters is then answered by two lists; a longer one
 * has every name holding it in the list of each of its 3-character grams, of which the shortest is
 * checked. All lists live in one typed array (2 bytes a number up to 65,536 names).
 *
 * Characters are UTF-16 code units, as String.prototype.includes compares them; names are matched
 * as stored (tag names are lowercase; the caller lowercases the needle).
 */
export class NameIndex {
  /** Code unit -> its number in the names' alphabet (from 1; 0: in no name). */
  private readonly letters = new Uint16Array(65_536);
  /** Alphabet size + 1: gram keys are numbers in this base, one digit a code unit. */
  private readonly base: number;
  /** Added to a gram's key for the list of the names starting with it (above every gram's key). */
  private readonly prefixed: number;
  /** Gram key -> its list (containing: the key; starting with: the key plus base³). */
  private readonly lists = new GramTable();
  /** List -> where it starts in `ids` (one more entry: the end). */
  private readonly starts: Uint32Array;
  private readonly ids: NameIds;

  constructor(readonly names: readonly string[]) {
    let size = 0;
    let chars = 0;
    for (const name of names) {
      chars += name.length;
      for (let i = 0; i < name.length; i++) {
        const c = name.charCodeAt(i);
        if (this.letters[c] === 0) this.letters[c] = ++size;
      }
    }
    this.base = size + 1;
    this.prefixed = this.base ** GRAM;
    const { order, ends, counts } = this.listNames(chars);
    this.starts = new Uint32Array(counts.length + 1);
    for (let l = 0; l < counts.length; l++) this.starts[l + 1] = this.starts[l] + counts[l];
    this.ids = names.length <= 0x10000 ? new Uint16Array(order.length) : new Uint32Array(order.length);
    // Names are visited in order, so every list comes out ascending.
    const next = this.starts.slice(0, counts.length);
    for (let n = 0, at = 0; n < names.length; n++) {
      for (; at < ends[n]; at++) this.ids[next[order[at]]++] = n;
    }
  }

  /** Numbers of the names containing `needle`; for a needle longer than 3, names that may (check them). */
  containing(needle: string): NameIds {
    if (needle.length <= GRAM) return this.list(this.key(needle, 0, needle.length));
    let shortest: NameIds | undefined;
    for (let i = 0; i + GRAM <= needle.length; i++) {
      const ids = this.list(this.key(needle, i, GRAM));
      if (shortest === undefined || ids.length < shortest.length) shortest = ids;
      if (ids.length === 0) break;
    }
    return shortest!;
  }

  /** Numbers of the names starting with `needle` (1 to 3 characters). */
  startingWith(needle: string): NameIds {
    if (needle.length === 0 || needle.length > GRAM) throw new RangeError('1 to 3 characters');
    const key = this.key(needle, 0, needle.length);
    return this.list(key === 0 ? 0 : key + this.prefixed);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.letters.byteLength + this.starts.byteLength + this.ids.byteLength + this.lists.bytes;
  }

  /** Each gram occurrence's list, once per name, name after name (`ends`: where each name's end). */
  private listNames(chars: number) {
    const { names, letters, base, prefixed, lists } = this;
    // At most 3 grams a character, plus 3 prefixes a name.
    const order = new Uint32Array(GRAM * chars + GRAM * names.length);
    const ends = new Uint32Array(names.length);
    let counts: Int32Array = new Int32Array(256);
    let lastName: Int32Array = new Int32Array(256).fill(-1);
    let size = 0;
    let at = 0;
    const keys = [0, 0, 0, 0];
    for (let n = 0; n < names.length; n++) {
      const name = names[n];
      let two = 0;
      for (let i = 0; i < name.length; i++) {
        // The 1-, 2- and 3-character grams ending here, as base-`base` numbers of their letters.
        const digit = letters[name.charCodeAt(i)];
        const three = two * base + digit;
        two = (two % base) * base + digit;
        const grams = Math.min(i + 1, GRAM);
        keys[0] = digit;
        keys[1] = two;
        keys[2] = three;
        keys[grams] = keys[grams - 1] + prefixed; // a prefix, while i < 3
        for (let g = 0; g < (i < GRAM ? grams + 1 : GRAM); g++) {
          let list = lists.get(keys[g]);
          if (list < 0) {
            list = size++;
            lists.add(keys[g], list);
            if (size > counts.length) [counts, lastName] = [grown(counts, 0), grown(lastName, -1)];
          }
          if (lastName[list] === n) continue; // the gram again in the same name
          lastName[list] = n;
          counts[list]++;
          order[at++] = list;
        }
      }
      ends[n] = at;
    }
    return { order: order.subarray(0, at), ends, counts: counts.subarray(0, size) };
  }

  /** The key of needle's gram at [from, from + length), or 0 when a character is in no name. */
  private key(needle: string, from: number, length: number): number {
    let key = 0;
    for (let i = from; i < from + length; i++) {
      const digit = this.letters[needle.charCodeAt(i)];
      if (digit === 0) return 0;
      key = key * this.base + digit;
    }
    return key;
  }

  private list(key: number): NameIds {
    const list = key === 0 ? -1 : this.lists.get(key);
    return list < 0 ? NONE : this.ids.subarray(this.starts[list], this.starts[list + 1]);
  }
}

function grown(array: Int32Array, fill: number): Int32Array {
  const bigger = new Int32Array(array.length * 2).fill(fill);
  bigger.set(array);
  return bigger;
}

/**
 * Gram key (an integer below 2^53) -> list number, open addressing in typed arrays: the build looks
 * up about three keys a character, which a Map does several times slower.
 */
class GramTable {
  private keys = new Float64Array(1024).fill(-1);
  private values = new Int32Array(1024);
  private size = 0;

  get bytes(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  /** The key's value, or -1. */
  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let at = hash(key) & mask; ; at = (at + 1) & mask) {
      if (this.keys[at] === key) return this.values[at];
      if (this.keys[at] === -1) return -1;
    }
  }

  /** Adds a key that is not in the table. */
  add(key: number, value: number): void {
    if (2 * (this.size + 1) > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let at = hash(key) & mask;
    while (this.keys[at] !== -1) at = (at + 1) & mask;
    this.keys[at] = key;
    this.values[at] = value;
    this.size++;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Float64Array(keys.length * 2).fill(-1);
    this.values = new Int32Array(keys.length * 2);
    this.size = 0;
    for (let at = 0; at < keys.length; at++) if (keys[at] !== -1) this.add(keys[at], values[at]);
  }
}

function hash(key: number): number {
  const h = Math.imul((key >>> 0) ^ Math.imul(Math.floor(key / 0x1_0000_0000), 0x9e3779b1), 0x85ebca6b);
  return h ^ (h >>> 15);
}
