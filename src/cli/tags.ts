import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { type Actor, COMMAND_LINE, type Deps } from '../core/deps.ts';
import { openDeps } from '../core/deps-open.ts';
import { AppError } from '../core/errors.ts';
import { isModerator } from '../core/policy.ts';
import type { Role } from '../core/tiers.ts';
import { createAlias, deleteAlias } from '../modules/tags/tag-aliases.service.ts';
import { TAG_CATEGORIES, type TagCategory } from '../core/tag-categories.ts';
import { patchTag } from '../modules/tags/tag-detail.service.ts';
import { createImplication, deleteImplication } from '../modules/tags/tag-implications.service.ts';
import { parseRelations, type Relation } from './relations-csv.ts';
import { progressPrinter } from './progress.ts';
import { findAccountByName } from './tags.repo.ts';
import type { CommandIo } from './seed.ts';

export const TAGS_USAGE = `  tags alias <from> <to> | unalias <from>
  tags implicate <from> <to> | unimplicate <from> <to>
  tags category <name> <${TAG_CATEGORIES.join('|')}>
  tags import <file.csv>
        Curate tags with the API's rules. The tag history names --as <username> (a moderator or admin) as the
        author; without --as, the change is the command line's (no author), as on a new board with no moderator.
        import: one relation a line, from,to,kind (kind alias or implication); a header line and # comments are skipped.
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

class Usage extends Error {}

const AS_HELP =
  'Name a moderator or admin account (imageboard user set-role <username> moderator makes one), or leave --as out to make the change as the command line.';

/** One relation through the same service the API calls; what it did, as a line. */
async function apply(deps: Deps, by: Actor, r: Relation): Promise<string> {
  if (r.kind === 'alias') {
    const made = await createAlias(deps, by, { from: r.from, to: r.to });
    return `alias ${made.from} -> ${made.to}${made.job ? jobNote(made.job.id, 'moves the posts') : ''}`;
  }
  const made = await createImplication(deps, by, { from: r.from, to: r.to });
  return `implication ${made.from} -> ${made.to}${'job' in made && made.job ? jobNote(made.job.id, 'adds the tag to the posts') : ''}`;
}

const jobNote = (id: string, what: string) => `; job ${id} ${what} (a running server does it: imageboard jobs show ${id} --wait)`;

/** `imageboard tags ...`: 0 done, 1 refused (the API's reason on stderr), 2 bad usage. */
export async function tagsCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { as: { type: 'string' } } });
  const [action, a, b] = positionals;
  const arity: Record<string, number> = { alias: 3, unalias: 2, implicate: 3, unimplicate: 3, category: 3, import: 2 };
  if (!action || arity[action] !== positionals.length) {
    io.err.write(`Usage:\n${TAGS_USAGE}`);
    return 2;
  }
  if (action === 'category' && !(TAG_CATEGORIES as readonly string[]).includes(b)) {
    io.err.write(`category must be one of: ${TAG_CATEGORIES.join(', ')}\n`);
    return 2;
  }
  // The file is read and checked before the database is touched: a bad line changes nothing.
  let relations: Relation[] = [];
  if (action === 'import') {
    const parsed = parseRelations(await readText(a, io));
    if (parsed === null) return 2; // readText said why
    if ('problems' in parsed) {
      io.err.write(`${a}: nothing imported:\n${parsed.problems.map((p) => `  ${p}\n`).join('')}`);
      return 2;
    }
    relations = parsed.relations;
  }
  const deps = await openDeps(loadConfig(io.env), { err: io.err });
  try {
    // Without --as: the command line, allowed everything, recorded as nobody in particular.
    const by = values.as === undefined ? COMMAND_LINE : await actorNamed(deps, values.as);
    if (action === 'import') return await importRelations(deps, by, relations, io);
    const line =
      action === 'alias'
        ? await apply(deps, by, { kind: 'alias', from: a, to: b })
        : action === 'implicate'
          ? await apply(deps, by, { kind: 'implication', from: a, to: b })
          : action === 'unalias'
            ? (await deleteAlias(deps, by, a)).message
            : action === 'unimplicate'
              ? (await deleteImplication(deps, by, a, b)).message
              : await setCategory(deps, by, a, b as TagCategory);
    io.out.write(`${line}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Usage) {
      io.err.write(`${err.message}\n`);
      return 2;
    }
    if (!(err instanceof AppError)) throw err;
    io.err.write(`${err.message}\n`);
    return 1;
  } finally {
    await deps.close();
  }
}

/** A file's text, or null when it cannot be read (said on stderr). */
async function readText(file: string, out: CommandIo): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    out.err.write(`Cannot read ${file}: ${(err as Error).message}\n`);
    return null;
  }
}

async function setCategory(deps: Deps, by: Actor, name: string, category: TagCategory): Promise<string> {
  const tag = await patchTag(deps, by, name, { category });
  return `${tag.name}: category ${tag.category}`;
}

/** --as: a moderator's or admin's account, recorded as the author of the changes. */
async function actorNamed(deps: Deps, username: string): Promise<Actor> {
  const user = await findAccountByName(deps.db, username);
  if (!user) throw new Usage(`--as: there is no user '${username}'. ${AS_HELP}`);
  const actor = { ...user, role: user.role as Role };
  if (!isModerator(actor)) throw new Usage(`--as: '${user.username}' is not a moderator or admin. ${AS_HELP}`);
  return actor;
}

/**
 * Applies the relations in file order, each in its own transaction, with progress. One that is
 * there already is counted, not an error, so an import can be run again; one the rules refuse is
 * reported with its line and the rest go on.
 */
async function importRelations(deps: Deps, by: Actor, relations: Relation[], io: CommandIo): Promise<number> {
  const show = progressPrinter(io.err, 'tags import');
  const counts = { made: 0, already: 0, refused: 0 };
  for (const [i, r] of relations.entries()) {
    try {
      const line = await apply(deps, by, r);
      show.clear(); // a terminal's progress line would run into it
      io.out.write(`line ${r.line}: ${line}\n`);
      counts.made++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      show.clear();
      if (err.status === 409) {
        // Said, because an alias name already standing for another tag is a 409 too.
        counts.already++;
        io.err.write(`line ${r.line}: skipped: ${err.message}\n`);
      } else {
        counts.refused++;
        io.err.write(`line ${r.line}: ${r.kind} ${r.from} -> ${r.to} refused: ${err.message}\n`);
      }
    }
    show('relations', i + 1, relations.length);
  }
  show.end();
  io.out.write(`${counts.made} made, ${counts.already} already there, ${counts.refused} refused\n`);
  return counts.refused > 0 ? 1 : 0;
}
