import { randomBytes } from 'node:crypto';
import type { Deps, Viewer } from '../../core/deps.ts';
import { createAccount } from '../users/accounts.ts';
import { findUserByLowerName } from './imports.repo.ts';

/** The account imported posts belong to when `--as` names none. */
export const IMPORT_USER = 'import';

export class UnknownUser extends Error {}

/**
 * Who the imported posts, pools and comments belong to: the named member, or the `import` account,
 * made on first use with a random password nobody is told (it cannot sign in until an admin sets
 * one). The import writes as an admin would (aliases, implications, others' posts' tags), whatever
 * the account's role: whoever runs the command already holds the database.
 */
export async function importUser(deps: Deps, name: string | null, dryRun = false): Promise<Viewer> {
  const wanted = name ?? IMPORT_USER;
  let row = await findUserByLowerName(deps.db, wanted.toLowerCase());
  if (!row && name !== null)
    throw new UnknownUser(`There is no member named '${name}' (--as): create it first (imageboard user create), or leave --as out to use '${IMPORT_USER}'`);
  // A dry run writes nothing, the account included: what it checks needs no owner yet.
  if (!row && dryRun) return { id: 0, username: IMPORT_USER, role: 'admin', tier: 'free' };
  row ??= await createAccount(deps, { username: IMPORT_USER, password: randomBytes(32).toString('base64url') }).catch(async (err) => {
    // Two imports starting at once: the other made it.
    const made = await findUserByLowerName(deps.db, IMPORT_USER);
    if (!made) throw err;
    return made;
  });
  return { id: row.id, username: row.username, role: 'admin', tier: row.tier as Viewer['tier'] };
}
