import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { testConfig } from '../../config.ts';
import { freshDatabase } from '../../../test/helpers.ts';
import type { Database } from '../../db/database.ts';
import { LocalMediaStore } from '../../storage/local.ts';
import { ownedName } from '../../storage/owner.ts';
import { recoverInterrupted } from './recover.ts';

let database: Database;
let dataDir: string;
let cleanup: () => Promise<void>;
before(async () => {
  ({ database, dataDir, cleanup } = await freshDatabase('sqlite'));
});
after(() => cleanup());

/** A name this host's process `pid` would have given a temp file. */
const nameOf = (pid: number, ext: string) => ownedName(ext).replace(`_${process.pid}_`, `_${pid}_`);

test('start-up clears what dead processes of this host left, and nothing of live ones or other hosts', async () => {
  const tmp = path.join(dataDir, 'tmp');
  const mediaDir = path.join(dataDir, 'media');
  fs.mkdirSync(tmp, { recursive: true });
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const orphan = `thumbs/ab/cd/${'abcd'.padEnd(64, '0')}.webp`;
  fs.mkdirSync(path.join(mediaDir, 'thumbs/ab/cd'), { recursive: true });
  fs.writeFileSync(path.join(mediaDir, orphan), 'stored before the kill');
  const files = {
    deadUpload: nameOf(dead, 'upload'),
    deadJournal: nameOf(dead, 'pending'),
    liveUpload: nameOf(process.ppid, 'upload'),
    otherHostYoung: `elsewhere_1_${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.upload`,
    otherHostOld: `elsewhere_2_${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.upload`,
  };
  for (const name of Object.values(files)) fs.writeFileSync(path.join(tmp, name), 'x');
  fs.writeFileSync(path.join(tmp, files.deadJournal), JSON.stringify([orphan]));
  const old = new Date(Date.now() - 2 * 3_600_000);
  fs.utimesSync(path.join(tmp, files.otherHostOld), old, old);

  const config = testConfig({ dataDir });
  const done = await recoverInterrupted({ db: database, config, media: new LocalMediaStore(mediaDir) });
  assert.deepEqual(done, { tempFiles: 2, journals: 1, mediaFiles: 1 });
  assert.deepEqual(fs.readdirSync(tmp).sort(), [files.liveUpload, files.otherHostYoung].sort());
  assert.equal(fs.existsSync(path.join(mediaDir, orphan)), false, 'the file the dead upload stored without its row is gone');
});
