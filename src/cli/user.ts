import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { COMMAND_LINE } from '../core/deps.ts';
import { AppError } from '../core/errors.ts';
import { checkBody } from '../core/validation.ts';
import { ROLES, TIERS, type Role, type Tier } from '../core/tiers.ts';
import { RegisterBody } from '../modules/auth/auth.schemas.ts';
import { createAccount } from '../modules/users/accounts.ts';
import { changeAccount } from '../modules/admin/admin.service.ts';
import { createResetLink } from '../modules/auth/password-reset.ts';
import { PasswordCancelled, passwordSource, type PasswordSource } from './password-input.ts';
import type { CommandIo } from './seed.ts';

export const USER_USAGE = `  user create <username> [--role user|moderator|admin] [--tier free|basic|pro|enterprise] (an admin's tier: enterprise unless given)
        Asks for the password (or reads it from standard input: echo "$PW" | imageboard user create ...).
        The first admin of a new board: imageboard user create <name> --role admin
  user set-tier <username> <tier>
  user set-role <username> <role>
  user reset-password <username>
        Prints a link that sets a new password: it works once, for one hour (PUBLIC_URL starts it).
`;

const ARGV_PASSWORD_WARNING =
  'Warning: a password on the command line is visible to other users in the process list and stays in your shell history.\n' +
  'Leave it out to be asked for it, or pipe it in: echo "$PASSWORD" | imageboard user create <username> [--role admin]\n';

/** A password read after the database opened that is not a usable one: exit 2, like bad arguments. */
class BadInput extends Error {}

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

function fail(io: CommandIo, message: string): number {
  io.err.write(`${message}\n`);
  return 2;
}

/** The value when it is one of the allowed ones, else null. */
function oneOf<T extends string>(value: string | undefined, allowed: readonly T[]): T | null {
  return value !== undefined && (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

/** `imageboard user ...`: the same rules and services as the API. */
export async function userCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { role: { type: 'string' }, tier: { type: 'string' } },
  });
  const [action, username, third] = positionals;
  let run: (deps: Awaited<ReturnType<typeof openDeps>>) => Promise<string>;
  let source: PasswordSource | null = null;
  if (action === 'create' && username && positionals.length <= 3) {
    const role = values.role === undefined ? 'user' : oneOf(values.role, ROLES);
    // An admin runs the board and its bots: made on the top tier, so the README's first admin can make API keys at once.
    const tier = values.tier === undefined ? (role === 'admin' ? 'enterprise' : 'free') : oneOf(values.tier, TIERS);
    // The username now, before anyone types a password; the password once it is read.
    const problems = checkBody(RegisterBody, { username, password: 'x'.repeat(64) });
    if (!role) problems.push(`--role must be one of: ${ROLES.join(', ')}`);
    if (!tier) problems.push(`--tier must be one of: ${TIERS.join(', ')}`);
    if (problems.length) return fail(io, problems.join('\n'));
    // `user create <username> <password>` is the documented form (DECISIONS.md), so it stays, with a warning.
    if (third !== undefined) io.err.write(ARGV_PASSWORD_WARNING);
    // On a terminal echo goes off now, before the database opens: what is typed meanwhile is
    // neither shown nor lost (it starts the password).
    else source = passwordSource(io.in ?? process.stdin, io.err);
    const asked = source;
    run = async (deps) => {
      const given = third !== undefined ? { password: third } : await asked!.read(username);
      if ('problem' in given) throw new BadInput(given.problem);
      const bad = checkBody(RegisterBody, { username, password: given.password });
      if (bad.length) throw new BadInput(bad.join('\n'));
      const u = await createAccount(deps, { username, password: given.password, role: role as Role, tier: tier as Tier });
      return `created ${u.username} (id ${u.id}, role ${u.role}, tier ${u.tier})`;
    };
  } else if ((action === 'set-tier' || action === 'set-role') && username && third) {
    const allowed: readonly string[] = action === 'set-tier' ? TIERS : ROLES;
    const value = oneOf(third, allowed);
    if (!value) return fail(io, `${action === 'set-tier' ? 'tier' : 'role'} must be one of: ${allowed.join(', ')}`);
    run = async (deps) => {
      const r = await changeAccount(deps, COMMAND_LINE, username, action === 'set-tier' ? { tier: value as Tier } : { role: value as Role });
      return `${r.user.username}: role ${r.user.role}, tier ${r.user.tier}${r.revokedKeys ? `; revoked ${r.revokedKeys} API key(s) over the new cap` : ''}`;
    };
  } else if (action === 'reset-password' && username && positionals.length === 2) {
    run = async (deps) => {
      const r = await createResetLink(deps, username);
      if (r.relative) io.err.write('PUBLIC_URL is not set: open this path on the address of the board, or set PUBLIC_URL for whole links.\n');
      return `${r.link}\nA link for ${r.username} to set a new password: it works once, until ${r.expiresAt}. Earlier links of ${r.username} no longer work.`;
    };
  } else {
    return fail(io, `Usage:\n${USER_USAGE}`);
  }
  try {
    return await runWithDeps(io, run);
  } finally {
    source?.close();
  }
}

/** Opens the board, runs the action, prints what it did; the exit code. */
async function runWithDeps(io: CommandIo, run: (deps: Awaited<ReturnType<typeof openDeps>>) => Promise<string>): Promise<number> {
  const deps = await openDeps(loadConfig(io.env), { err: io.err });
  try {
    io.out.write(`${await run(deps)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof PasswordCancelled) return 130;
    if (err instanceof BadInput) return fail(io, err.message);
    if (err instanceof AppError) {
      io.err.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}
