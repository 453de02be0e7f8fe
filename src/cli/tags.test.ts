import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandEnv, eachDatabase, getJson, type Ctx } from '../../test/helpers.ts';
import { postTags, tagObject, uploadTagged, userAndModerator } from '../../test/tag-helpers.ts';
import { tagsCommand } from './tags.ts';

/** Runs `imageboard tags ...` against the suite's board; its exit code and output. */
async function tags(ctx: Ctx, args: string[]) {
  let out = '';
  let err = '';
  const code = await tagsCommand(args, { env: await commandEnv(ctx), out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

/** The authors and kinds of a tag's history, newest first. */
async function authors(ctx: Ctx, name: string): Promise<string[]> {
  const res = await getJson(ctx.app, `/api/tags/${name}/history`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.history.map(
    (e: { kind: string; action: string; user: { username: string } | null }) => `${e.kind} ${e.action} by ${e.user?.username ?? 'nobody'}`,
  );
}

async function writeCsv(ctx: Ctx, name: string, text: string): Promise<string> {
  const file = path.join(ctx.dataDir, name);
  await fs.writeFile(file, text);
  return file;
}

eachDatabase(
  'cli: imageboard tags',
  (ctx) => {
    const who = userAndModerator(ctx);
    let post: string;
    before(async () => {
      post = await uploadTagged(ctx, who.alice, 'cli_kitty, cli_lion');
    });

    test('alias, implicate and category change the board as the API would, recorded under --as or as nobody', async () => {
      const alias = await tags(ctx, ['alias', 'cli_kitty', 'cli_cat', '--as', 'mod']);
      assert.deepEqual([alias.code, alias.out], [0, 'alias cli_kitty -> cli_cat\n'], alias.err);
      const implicate = await tags(ctx, ['implicate', 'cli_lion', 'cli_feline']);
      assert.equal(implicate.code, 0, implicate.err);
      assert.match(
        implicate.out,
        /^implication cli_lion -> cli_feline; job \d+ adds the tag to the posts \(a running server does it: imageboard jobs show \d+ --wait\)\n$/,
      );
      const category = await tags(ctx, ['category', 'cli_cat', 'character', '--as', 'mod']);
      assert.deepEqual([category.code, category.out], [0, 'cli_cat: category character\n'], category.err);

      assert.deepEqual((await postTags(ctx, post)).tags, ['cli_cat', 'cli_lion'], 'the alias moved the post');
      assert.equal((await tagObject(ctx, 'cli_kitty')).name, 'cli_cat');
      assert.deepEqual((await tagObject(ctx, 'cli_lion')).implies, ['cli_feline']);
      assert.deepEqual(await authors(ctx, 'cli_cat'), ['tag update by mod', 'alias create by mod']);
      assert.deepEqual(await authors(ctx, 'cli_feline'), ['implication create by nobody']);

      const unalias = await tags(ctx, ['unalias', 'cli_kitty']);
      const unimplicate = await tags(ctx, ['unimplicate', 'cli_lion', 'cli_feline']);
      assert.deepEqual([unalias.code, unimplicate.code], [0, 0], unalias.err + unimplicate.err);
      assert.equal((await tagObject(ctx, 'cli_lion')).implies.length, 0);
      assert.equal((await tagObject(ctx, 'cli_kitty')).name, 'cli_kitty', 'the name is its own tag again');
    });

    test('refused by the rules: exit 1 with the reason; bad usage and --as a non-moderator: exit 2; nothing changed', async () => {
      assert.equal((await tags(ctx, ['implicate', 'cli_a', 'cli_b'])).code, 0);
      const cycle = await tags(ctx, ['implicate', 'cli_b', 'cli_a']);
      assert.equal(cycle.code, 1);
      assert.match(cycle.err, /cli_b -> cli_a -> cli_b/);
      const notMod = await tags(ctx, ['alias', 'cli_x', 'cli_y', '--as', 'alice']);
      assert.equal(notMod.code, 2);
      assert.match(notMod.err, /'alice' is not a moderator or admin/);
      assert.match(
        (await tags(ctx, ['alias', 'cli_x', 'cli_y', '--as', 'nobody_here'])).err,
        /there is no user 'nobody_here'\. Name a moderator or admin account .* or leave --as out/,
      );
      const badCategory = await tags(ctx, ['category', 'cli_a', 'painter']);
      assert.equal(badCategory.code, 2);
      assert.match(badCategory.err, /category must be one of: general, artist, copyright, character, meta/);
      for (const args of [[], ['alias', 'only_one'], ['rename', 'a', 'b'], ['import']]) {
        const r = await tags(ctx, args);
        assert.equal(r.code, 2, args.join(' '));
        assert.match(r.err, /tags alias <from> <to>/);
      }
      assert.equal((await getJson(ctx.app, '/api/tags/cli_x')).status, 404);
    });

    test('import: a CSV of aliases and implications, with progress; run again, what is there is skipped; a refused line is named and the rest applied', async () => {
      await uploadTagged(ctx, who.alice, 'imp_doggy, imp_puppy');
      const file = await writeCsv(
        ctx,
        'relations.csv',
        'from,to,kind\n# dogs\nimp_doggy,imp_dog,alias\n\nimp_puppy,imp_dog,implication\n"imp_dog","imp_animal",implication\nimp_animal,imp_puppy,implication\n',
      );
      const first = await tags(ctx, ['import', file, '--as', 'mod']);
      assert.equal(first.code, 1, 'one line was refused');
      assert.match(
        first.out,
        /^line 3: alias imp_doggy -> imp_dog\nline 5: implication imp_puppy -> imp_dog\nline 6: implication imp_dog -> imp_animal; job \d+ .*\n/,
      );
      assert.match(first.out, /3 made, 0 already there, 1 refused\n$/);
      assert.match(first.err, /line 7: implication imp_animal -> imp_puppy refused: .*imp_animal -> imp_puppy -> imp_dog -> imp_animal/);
      assert.match(first.err, /tags import: relations\s+4\/4 \(100%\) \[#{20}\]/);
      assert.deepEqual((await tagObject(ctx, 'imp_dog')).implies, ['imp_animal']);
      assert.deepEqual((await tagObject(ctx, 'imp_doggy')).aliases, ['imp_doggy']);

      const again = await tags(ctx, ['import', file, '--as', 'mod']);
      assert.match(again.out, /0 made, 3 already there, 1 refused\n$/);
      assert.match(again.err, /line 3: skipped: 'imp_doggy' is already an alias of 'imp_dog'/);
    });

    test('import: a file with bad lines changes nothing and names every one; a missing file is said', async () => {
      const file = await writeCsv(ctx, 'bad.csv', 'bad_a,bad_b,alias\nbad_c,bad_d,synonym\nbad_e,bad_f\n');
      const r = await tags(ctx, ['import', file]);
      assert.equal(r.code, 2);
      assert.match(
        r.err,
        /nothing imported:\n {2}line 2: kind must be alias or implication \(got 'synonym'\)\n {2}line 3: expected from,to,kind \(got 'bad_e,bad_f'\)\n/,
      );
      assert.equal((await getJson(ctx.app, '/api/tags/bad_a')).status, 404);
      const missing = await tags(ctx, ['import', path.join(ctx.dataDir, 'none.csv')]);
      assert.equal(missing.code, 2);
      assert.match(missing.err, /Cannot read .*none\.csv/);
    });
  },
  // The implication's job is left for "a running server", as the command says: a runner in the test's app
  // would pick it up within its poll (1 s) on a slow machine, and give the post the consequent mid-test.
  {},
  { jobs: { run: false } },
);

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The README's command-line lines (Command line section) that start with `npx imageboard <words>`, comments dropped. */
function readmeLine(start: string): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Command line')).match(/```sh\n([\s\S]*?)```/)![1];
  const line = block.split('\n').find((l) => l.startsWith(`npx imageboard ${start}`));
  assert.ok(line, `the README shows npx imageboard ${start}`);
  return line.replace(/#.*/, '').trim().split(/\s+/).slice(2);
}

test("the README's tags alias line works as written on a new board, after the README's first admin", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ib-readme-tags-'));
  const imageboard = (args: string[], input = '') =>
    spawnSync(process.execPath, ['bin/imageboard.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      input,
      encoding: 'utf8',
    });
  try {
    assert.equal(imageboard(['migrate']).status, 0, 'a new board (the README: start the server once, or seed)');
    const admin = imageboard(readmeLine('user create'), 'a long password\n');
    assert.equal(admin.status, 0, admin.stderr);
    assert.match(admin.stdout, /role admin/);
    const alias = imageboard(readmeLine('tags alias'));
    assert.equal(alias.status, 0, alias.stderr);
    assert.match(alias.stdout, /^alias \w+ -> \w+\n$/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
