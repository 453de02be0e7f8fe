import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mediaCommand } from './media.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

test('media check says "checked N posts" once, on a terminal and off one', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-media-check-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const seeded = spawnSync(process.execPath, ['bin/imageboard.js', 'seed', '--posts', '3', '--users', '2'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    encoding: 'utf8',
  });
  assert.equal(seeded.status, 0, seeded.stderr);
  for (const isTTY of [false, true]) {
    // Both streams in one, as a terminal or `2>&1` shows them.
    let shown = '';
    const write = (s: string) => (shown += s);
    const code = await mediaCommand(['check'], {
      env: { DATA_DIR: dataDir, DATABASE_URL: '', MEDIA_GRACE_MINUTES: '0' },
      out: { write },
      err: { write, isTTY },
    });
    assert.equal(code, 0, shown);
    assert.equal(shown.match(/checked \d+ posts/g)?.length, 1, shown);
    assert.match(shown, /checked 3 posts and \d+ files\n[\s\S]*all good\n$/);
    assert.match(shown, /media check: posts\s+3\/3 \(100%\)/, 'the progress says how far, in its own words');
  }
});
