import type { Random } from './random.ts';
import { ADJECTIVES, BIO_LINES, COLOURS, COMMENT_LINES, CREATURES, DESCRIPTION_LINES, SETTINGS, STYLES, SUBJECTS, TIMES } from './words.ts';

/**
 * `count` distinct tag names, most general first: plain words (`cat`, `landscape`, `pixel_art`),
 * then colour/adjective + subject pairs (`blue_cat`, `misty_lighthouse`), then numbered variants
 * (`blue_cat_2`) when still more are needed. Position in the list is the tag's popularity rank.
 */
export function tagNames(count: number, rng: Random): string[] {
  const singles = rng.shuffle([...SUBJECTS, ...COLOURS, ...STYLES, ...SETTINGS]);
  const pairs: string[] = [];
  for (const subject of SUBJECTS) {
    for (const colour of COLOURS) pairs.push(`${colour}_${subject}`);
    for (const adjective of ADJECTIVES) if (adjective !== subject) pairs.push(`${adjective}_${subject}`);
  }
  rng.shuffle(pairs);
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (name: string) => {
    if (out.length < count && !seen.has(name)) {
      seen.add(name);
      out.push(name);
    }
  };
  for (const name of singles) add(name);
  for (const name of pairs) add(name);
  for (let variant = 2; out.length < count; variant++) {
    for (const name of pairs) add(`${name}_${variant}`);
  }
  return out;
}

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const words = (tag: string) => tag.replace(/_/g, ' ');

/** Usernames of 3-32 characters of [A-Za-z0-9_.-], distinct without regard to case; `taken` is updated. */
export function username(rng: Random, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const adjective = rng.pick(ADJECTIVES);
    const creature = rng.pick(CREATURES);
    const number = attempt > 2 || rng.chance(0.4) ? String(rng.between(1, attempt > 5 ? 99_999 : 999)) : '';
    const name = rng
      .weighted<string>([
        [`${adjective}_${creature}${number}`, 4],
        [`${capital(adjective)}${capital(creature)}${number}`, 3],
        [`${creature}.${adjective}${number}`, 1],
        [`${creature}${number || rng.between(10, 99)}`, 2],
      ])
      .slice(0, 32);
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}

export function postTitle(rng: Random): string {
  const subject = words(rng.pick(SUBJECTS));
  switch (rng.int(6)) {
    case 0:
      return `${capital(rng.pick(ADJECTIVES))} ${subject}`;
    case 1:
      return `${capital(subject)} ${rng.pick(TIMES)}`;
    case 2:
      return `${capital(rng.pick(COLOURS))} ${subject} ${rng.pick(TIMES)}`;
    case 3:
      return `Study of a ${rng.pick(ADJECTIVES)} ${subject}`;
    case 4:
      return `${capital(subject)} in ${words(rng.pick(STYLES))}`;
    default:
      return `The ${rng.pick(ADJECTIVES)} ${subject} #${rng.between(1, 99)}`;
  }
}

/** Two posts in five have a description. */
export function postDescription(rng: Random): string {
  if (!rng.chance(0.4)) return '';
  const first = rng.pick(DESCRIPTION_LINES);
  return rng.chance(0.5) ? first : `${first} ${rng.pick(DESCRIPTION_LINES)}`;
}

export function bio(rng: Random): string {
  if (!rng.chance(0.6)) return '';
  return rng.chance(0.7) ? rng.pick(BIO_LINES) : `${rng.pick(BIO_LINES)} ${rng.pick(BIO_LINES)}`;
}

export function commentText(rng: Random, isReply: boolean): string {
  const line = rng.pick(COMMENT_LINES);
  if (rng.chance(isReply ? 0.2 : 0.35)) return `${line} The ${words(rng.pick(SUBJECTS))} especially.`;
  return line;
}

export function poolName(rng: Random): string {
  const subject = words(rng.pick(SUBJECTS));
  switch (rng.int(5)) {
    case 0:
      return `Best of ${subject}`;
    case 1:
      return `${capital(rng.pick(COLOURS))} ${subject} collection`;
    case 2:
      return `${capital(words(rng.pick(STYLES)))} favourites`;
    case 3:
      return `${capital(rng.pick(ADJECTIVES))} ${subject} series`;
    default:
      return `${capital(words(rng.pick(SETTINGS)))} inspiration`;
  }
}

export function poolDescription(rng: Random): string {
  return rng.chance(0.5)
    ? ''
    : rng.pick([
        'A personal selection.',
        'Updated every week.',
        'My favourites, in order.',
        'Reference images.',
        'Things that made me smile.',
        'Work in progress.',
      ]);
}
