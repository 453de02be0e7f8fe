// Who may do what (issue 25 point 10), as one table: for each guarded action, the status each of
// anonymous, a member, the owner of the target (where it has one), a moderator, an admin and a
// banned member gets from the real app. The banned member owns the target of the owned actions
// (a post uploaded before the ban), so the table shows a ban outranking ownership. The ban is made
// through the API in before(); in fleet mode (TEST_FLEET) each request after it goes to another
// instance than the one before, so every banned cell is a ban enforced by an instance that did
// not make it.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { register, setAccount, type Account } from './auth-helpers.ts';
import { eachDatabase } from './helpers.ts';
import { ban, cast, comment, report } from './moderation-helpers.ts';
import { editTags, uploadTagged } from './tag-helpers.ts';

const ACTORS = ['anonymous', 'member', 'owner', 'moderator', 'admin', 'banned'] as const;
type Actor = (typeof ACTORS)[number];
type Request = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; payload?: object };

interface Rule {
  action: string;
  /** One status an actor, in the order of ACTORS; null where the action has no owner. */
  expect: [number, number, number | null, number, number, number];
  /** The request an actor sends; made afresh for each (a target of its own where a success uses one up). */
  request(actor: Actor): Request | Promise<Request>;
}

eachDatabase({ title: 'role matrix: who may do what', fleet: 'a ban and roles set through one instance are enforced by the others' }, (ctx) => {
  const who = cast(ctx);
  let banned: Account;
  /** olive's post, edited once (two versions), and the banned member's, uploaded before the ban. */
  let olives: string;
  let bannedOwn: string;

  before(async () => {
    banned = await register(ctx.app, 'bastian');
    for (const name of ['tom', 'tina', 'mod2', 'root2']) await register(ctx.app, name);
    await setAccount(ctx.database, 'mod2', { role: 'moderator' });
    await setAccount(ctx.database, 'root2', { role: 'admin' });
    olives = await uploadTagged(ctx, who.owner, 'matrix_one');
    assert.equal((await editTags(ctx, who.owner, olives, ['matrix_two'])).statusCode, 200);
    bannedOwn = await uploadTagged(ctx, banned, 'matrix_banned');
    const res = await ban(ctx.app, who.mod.headers, 'bastian', { reason: 'role matrix' });
    assert.equal(res.statusCode, 200, res.body);
  });

  const headers = (actor: Actor): Record<string, string> =>
    ({ anonymous: {}, member: who.member.headers, owner: who.owner.headers, moderator: who.mod.headers, admin: who.admin.headers, banned: banned.headers })[
      actor
    ];
  /** The post an owned action targets: the banned member's own for them, olive's for everyone else. */
  const postOf = (actor: Actor) => (actor === 'banned' ? bannedOwn : olives);
  /** A report of olive's (she is its owner) on a fresh comment, open. */
  const openReport = async () => {
    const note = await comment(ctx.app, who.member.headers, olives, 'a comment to report');
    const res = await report(ctx.app, who.owner.headers, { commentId: note, reason: 'spam' });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().report.id as string;
  };
  const bannedBy = async (target: string) => {
    const res = await ban(ctx.app, who.admin.headers, target, { reason: 'to lift' });
    assert.equal(res.statusCode, 200, res.body);
  };

  const RULES: Rule[] = [
    {
      action: "POST /api/reports (of olive's post; the owner may report her own)",
      expect: [401, 201, 201, 201, 201, 403],
      request: () => ({ method: 'POST', url: '/api/reports', payload: { postId: olives, reason: 'role matrix' } }),
    },
    { action: 'GET /api/moderation/reports', expect: [401, 403, null, 200, 200, 403], request: () => ({ method: 'GET', url: '/api/moderation/reports' }) },
    {
      action: 'PATCH /api/moderation/reports/<id> (the owner: its reporter)',
      expect: [401, 403, 403, 200, 200, 403],
      request: async () => ({ method: 'PATCH', url: `/api/moderation/reports/${await openReport()}`, payload: { state: 'resolved' } }),
    },
    {
      action: 'PUT /api/admin/users/<member>/ban',
      expect: [401, 403, null, 200, 200, 403],
      request: () => ({ method: 'PUT', url: '/api/admin/users/tom/ban', payload: { reason: 'matrix' } }),
    },
    {
      action: 'PUT /api/admin/users/<moderator>/ban: admins only',
      expect: [401, 403, null, 403, 200, 403],
      request: () => ({ method: 'PUT', url: '/api/admin/users/mod2/ban', payload: { reason: 'matrix' } }),
    },
    {
      action: 'PUT /api/admin/users/<admin>/ban: nobody',
      expect: [401, 403, null, 403, 403, 403],
      request: () => ({ method: 'PUT', url: '/api/admin/users/root2/ban', payload: { reason: 'matrix' } }),
    },
    {
      action: 'DELETE /api/admin/users/<member>/ban',
      expect: [401, 403, null, 200, 200, 403],
      request: async () => {
        await bannedBy('tom');
        return { method: 'DELETE', url: '/api/admin/users/tom/ban' };
      },
    },
    {
      action: 'DELETE /api/admin/users/<moderator>/ban: admins only',
      expect: [401, 403, null, 403, 200, 403],
      request: async () => {
        await bannedBy('mod2');
        return { method: 'DELETE', url: '/api/admin/users/mod2/ban' };
      },
    },
    { action: 'GET /api/audit', expect: [401, 403, null, 200, 200, 403], request: () => ({ method: 'GET', url: '/api/audit' }) },
    {
      action: 'GET /api/posts/<id>/history: anyone',
      expect: [200, 200, 200, 200, 200, 200],
      request: (a) => ({ method: 'GET', url: `/api/posts/${postOf(a)}/history` }),
    },
    {
      action: 'POST /api/posts/<id>/revert',
      expect: [401, 403, 200, 200, 200, 403],
      request: (a) => ({ method: 'POST', url: `/api/posts/${postOf(a)}/revert`, payload: { version: 1 } }),
    },
    {
      action: 'PATCH /api/posts/<id>',
      expect: [401, 403, 200, 200, 200, 403],
      request: (a) => ({ method: 'PATCH', url: `/api/posts/${postOf(a)}`, payload: { title: `renamed by the ${a}` } }),
    },
    {
      action: 'DELETE /api/posts/<id>',
      expect: [401, 403, 200, 200, 200, 403],
      request: async (a) => ({ method: 'DELETE', url: `/api/posts/${a === 'banned' ? bannedOwn : await uploadTagged(ctx, who.owner, 'matrix_doomed')}` }),
    },
    {
      action: 'POST /api/admin/invites: admins only',
      expect: [401, 403, null, 403, 201, 403],
      request: () => ({ method: 'POST', url: '/api/admin/invites', payload: {} }),
    },
    {
      action: "PUT /api/admin/users/<name> tier (the owner: her own account's)",
      expect: [401, 403, 403, 403, 200, 403],
      request: (a) => ({ method: 'PUT', url: `/api/admin/users/${a === 'owner' ? 'olive' : 'tina'}`, payload: { tier: 'pro' } }),
    },
    {
      action: "PUT /api/admin/users/<name> role (the owner: her own account's)",
      expect: [401, 403, 403, 403, 200, 403],
      request: (a) => ({ method: 'PUT', url: `/api/admin/users/${a === 'owner' ? 'olive' : 'tina'}`, payload: { role: 'moderator' } }),
    },
  ];

  for (const rule of RULES) {
    const cells = ACTORS.flatMap((actor, i) => (rule.expect[i] === null ? [] : [[actor, rule.expect[i]] as const]));
    test(`${rule.action}: ${cells.map(([a, s]) => `${a} ${s}`).join(', ')}`, async () => {
      const got: Partial<Record<Actor, number>> = {};
      for (const [actor] of cells) {
        const res = await ctx.app.inject({ ...(await rule.request(actor)), headers: headers(actor) });
        got[actor] = res.statusCode;
      }
      assert.deepEqual(got, Object.fromEntries(cells));
    });
  }
});
