import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { PASSWORD, assertBadField, assertError, login, loginOk, me, register, type Account } from '../../../test/auth-helpers.ts';

type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer };

/** A multipart/form-data body, as a browser form would send it. */
function multipart(parts: Part[]) {
  const boundary = `----imageboard${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const head =
      'data' in p
        ? `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`
        : `Content-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}`), 'data' in p ? p.data : Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const png = (width: number, height: number, r = 200) =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 30, b: 90 } } })
    .png()
    .toBuffer();

eachDatabase('profiles: PATCH /api/users/me and PUT /api/users/me/password', (ctx: Ctx) => {
  let erin: Account;
  const patch = (headers: Record<string, string>, payload: object | Buffer, extra: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: { ...headers, ...extra }, payload });
  const profile = async (name: string) => (await ctx.app.inject({ method: 'GET', url: `/api/users/${name}` })).json();
  const changePassword = (headers: Record<string, string>, payload: object) =>
    ctx.app.inject({ method: 'PUT', url: '/api/users/me/password', headers, payload });

  before(async () => {
    erin = await register(ctx.app, 'erin');
  });

  test('JSON { bio } up to 1,000 characters is saved and shown on the public profile; 1,001 is 400', async () => {
    const res = await patch(erin.headers, { bio: 'I draw foxes.' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().username, 'erin');
    assert.equal(res.json().bio, 'I draw foxes.');
    assert.equal((await profile('erin')).bio, 'I draw foxes.');

    const longest = 'é'.repeat(1000);
    assert.equal((await patch(erin.headers, { bio: longest })).statusCode, 200);
    assert.equal((await profile('erin')).bio, longest);
    assertBadField(await patch(erin.headers, { bio: 'b'.repeat(1001) }), 'bio');
    assert.equal((await profile('erin')).bio, longest, 'unchanged');
    assert.equal((await patch(erin.headers, { bio: '' })).json().bio, '', 'a bio can be cleared');
  });

  test('anonymous is 401; an empty change or an unknown field is 400', async () => {
    assertError(await patch({}, { bio: 'anon' }), 401);
    assertError(await patch(erin.headers, {}), 400);
    assertBadField(await patch(erin.headers, { bio: 'x', role: 'admin' }), 'role');
    assertBadField(await patch(erin.headers, { bio: 5 }), 'bio');
    assert.equal((await me(ctx.app, erin.headers)).json().user.role, 'user');
  });

  test('multipart bio + avatar: the avatar is stored as a 256x256 WebP served under /media/', async () => {
    const form = multipart([
      { name: 'bio', value: 'Now with a face.' },
      { name: 'avatar', filename: 'me.png', type: 'image/png', data: await png(640, 400) },
    ]);
    const res = await patch(erin.headers, form.payload, form.headers);
    assert.equal(res.statusCode, 200, res.body);
    const { avatar, bio } = res.json();
    assert.equal(bio, 'Now with a face.');
    assert.match(avatar, /^\/media\/.+\.webp$/);

    const file = await ctx.app.inject({ method: 'GET', url: avatar });
    assert.equal(file.statusCode, 200);
    assert.match(String(file.headers['content-type']), /^image\/webp/);
    const meta = await sharp(file.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 256, 256]);

    const shown = await profile('erin');
    assert.deepEqual([shown.bio, shown.avatar], ['Now with a face.', avatar]);
  });

  test('an avatar alone keeps the bio; a text file as avatar is 415; an over-long bio in a form is 400', async () => {
    const before = await profile('erin');
    const tall = multipart([{ name: 'avatar', filename: 'tall.png', type: 'image/png', data: await png(50, 300, 20) }]);
    const res = await patch(erin.headers, tall.payload, tall.headers);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().bio, before.bio);
    assert.notEqual(res.json().avatar, before.avatar);
    const meta = await sharp((await ctx.app.inject({ method: 'GET', url: res.json().avatar })).rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 256, 256], 'a small, non-square image is scaled and cropped too');

    for (const [filename, type] of [
      ['notes.txt', 'text/plain'],
      ['fake.png', 'image/png'],
    ]) {
      const text = multipart([
        { name: 'bio', value: 'should not stick' },
        { name: 'avatar', filename, type, data: Buffer.from('just some text, not an image\n') },
      ]);
      assertError(await patch(erin.headers, text.payload, text.headers), 415);
    }
    const long = multipart([{ name: 'bio', value: 'c'.repeat(1001) }]);
    assertBadField(await patch(erin.headers, long.payload, long.headers), 'bio');
    const after = await profile('erin');
    assert.deepEqual([after.bio, after.avatar], [before.bio, res.json().avatar], 'refused forms change nothing');
  });

  test('a wrong current password is 400 and changes nothing; a too-short new one is 400; anonymous is 401', async () => {
    const wrong = await changePassword(erin.headers, { currentPassword: 'not my password', newPassword: 'brand new password' });
    assertBadField(wrong, 'currentPassword');
    assertBadField(await changePassword(erin.headers, { currentPassword: PASSWORD, newPassword: 'x'.repeat(7) }), 'newPassword');
    assertBadField(await changePassword(erin.headers, { currentPassword: PASSWORD, newPassword: 'x'.repeat(257) }), 'newPassword');
    assertBadField(await changePassword(erin.headers, { newPassword: 'brand new password' }), 'currentPassword');
    assertError(await changePassword({}, { currentPassword: PASSWORD, newPassword: 'brand new password' }), 401);
    assert.equal((await login(ctx.app, 'erin', 'brand new password')).statusCode, 401);
    await loginOk(ctx.app, 'erin');
  });

  test('a password change: old password fails, new one works, other sessions end, this one keeps working', async () => {
    const frank = await register(ctx.app, 'frank');
    const laptop = await loginOk(ctx.app, 'frank');
    const phone = await loginOk(ctx.app, 'frank');
    const res = await changePassword(laptop, { currentPassword: PASSWORD, newPassword: 'a much better passphrase' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(typeof res.json().message, 'string');

    assert.equal((await me(ctx.app, laptop)).statusCode, 200, 'the session that changed it keeps working');
    assertError(await me(ctx.app, phone), 401);
    assertError(await me(ctx.app, frank.headers), 401);
    assertError(await login(ctx.app, 'frank', PASSWORD), 401);
    const fresh = await login(ctx.app, 'frank', 'a much better passphrase');
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.json().user.id, frank.id);
  });
});
