/**
 * Rough heap bytes of plain JS values, for the memory reports of what a process keeps (the search
 * engine's memory()). Typed arrays are counted exactly (byteLength); these are estimates of V8 on
 * 64 bits without pointer compression (as Node ships): 8 bytes a field or slot.
 */

/** A Map or Set entry: its key, value and chain slots in V8's ordered hash table (the buckets are ~half a slot more). */
export const MAP_ENTRY = 28;

/** A string of one-byte characters: a 16-byte header (map, hash, length) and a byte a character (two for others, not told apart here). */
export const stringBytes = (s: string): number => 16 + s.length;

/** A plain object of `fields` properties kept in the object: map, properties and elements pointers, and 8 bytes a property. */
export const objectBytes = (fields: number): number => 24 + 8 * fields;

/** A JS array of `n` small numbers or pointers: the array object (32 bytes) and its backing store (16 + 8 a slot). */
export const arrayBytes = (n: number): number => 48 + 8 * n;
