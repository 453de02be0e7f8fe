// A search on a board whose kept sets are still being read for the first time (minutes at ten
// million posts): it is answered by SQL after a short wait, not held until the read ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPost, createUser } from '../../test/factories.ts';
import { eachDatabase } from '../../test/helpers.ts';
import { createServices } from '../services.ts';
import { answeredWithin, createEngineCore, type EngineCore } from './engine.ts';
import { finishSearch } from './search.ts';
import { TagSets } from './sets/tag-sets.ts';

const START = Date.parse('2026-01-01T00:00:00Z');

/** Tag sets whose first read never ends. */
class EndlessSets extends TagSets {
  override current(): Promise<this> {
    return new Promise(() => {});
  }
}

/** Tag sets whose reads take longer than a search waits by default (SETS_WAIT_MS). */
class SlowSets extends TagSets {
  override async current(...args: Parameters<TagSets['current']>): Promise<this> {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return super.current(...args);
  }
}

eachDatabase('a search while the kept sets are read for the first time', (ctx) => {
  test('newest and by tag: the posts come from SQL after the wait; with the sets read, from the sets', async () => {
    const user = await createUser(ctx.database, { username: 'waiter' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createPost(ctx.database, { uploaderId: user, createdAt: START + i * 1000, tags: i % 2 ? ['odd'] : ['even'] }));
    const odd = ids.filter((_, i) => i % 2).reverse();

    // The sets strategy forced, so that on a board this small only the wait decides.
    const { config } = ctx.app.deps;
    const deps = { ...ctx.app.deps, config: { ...config, search: { ...config.search, strategy: 'sets' as const } } };
    const waiting = createEngineCore(deps, { tagSets: new EndlessSets(), setsWaitMs: 50 });
    const built = createEngineCore(deps, { setsWaitMs: 60_000 });
    for (const [core, by] of [
      [waiting, 'sql'],
      [built, 'sets'],
    ] as const) {
      for (const [q, want] of [
        ['', [...ids].reverse()],
        ['odd', odd],
      ] as const) {
        const started = performance.now();
        const found = await core.searchAt({ q, limit: 24 }, undefined);
        const ms = performance.now() - started;
        assert.equal('sql' in found.plan.page, by === 'sql', `"${q}" planned by ${by}`);
        if (by === 'sql') assert.ok(ms < 5_000, `"${q}" answered in ${ms.toFixed(0)} ms, not held by the read`);
        const page = await finishSearch(ctx.database, found.plan, 1_000);
        assert.deepEqual(page.ids, want, `"${q}" by ${by}`);
        assert.equal(page.total, want.length);
      }
    }
  });

  test('once a search gave up waiting for the first read, the next ones do not wait for it again', async () => {
    const user = await createUser(ctx.database, { username: 'once' });
    for (let i = 0; i < 3; i++) await createPost(ctx.database, { uploaderId: user, createdAt: START + i * 1000, tags: ['once'] });
    const { config } = ctx.app.deps;
    const deps = { ...ctx.app.deps, config: { ...config, search: { ...config.search, strategy: 'sets' as const } } };
    const core = createEngineCore(deps, { tagSets: new EndlessSets(), setsWaitMs: 1_000 });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const found = await core.searchAt({ q: 'once', limit: 24 }, undefined);
      times.push(performance.now() - started);
      assert.equal('sql' in found.plan.page, true);
      assert.equal((await finishSearch(ctx.database, found.plan, 1_000)).total, 3);
    }
    assert.ok(times[0] >= 900, `the first waited for the sets (${times[0].toFixed(0)} ms)`);
    assert.ok(times[1] < 500 && times[2] < 500, `the next ones did not (${times[1].toFixed(0)}, ${times[2].toFixed(0)} ms)`);
  });

  test('a strategy forced by the settings waits for its sets past the default wait', async () => {
    const user = await createUser(ctx.database, { username: 'patient' });
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await createPost(ctx.database, { uploaderId: user, createdAt: START + i * 1000, tags: ['slow'] }));
    const { config } = ctx.app.deps;
    const deps = { ...ctx.app.deps, config: { ...config, search: { ...config.search, strategy: 'sets' as const } } };
    const found = await createEngineCore(deps, { tagSets: new SlowSets() }).searchAt({ q: 'slow', limit: 24 }, undefined);
    assert.equal('sql' in found.plan.page, false, 'planned by the sets it was told to use');
    assert.deepEqual((await finishSearch(ctx.database, found.plan, 1_000)).ids, [...ids].reverse());
  });

  test('a core in the main thread that answers nothing (a long statement holds it): the serving thread answers the list by SQL', async () => {
    const user = await createUser(ctx.database, { username: 'stalled' });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createPost(ctx.database, { uploaderId: user, createdAt: START + i * 1000, tags: i % 2 ? ['odd'] : ['even'] }));
    const never = () => new Promise<never>(() => {});
    const stalled: EngineCore = { searchAt: never, countsOf: never, memory: never, warm: never };
    const { posts } = createServices(ctx.app.deps, { searchCore: stalled });
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), 10_000);
    });
    const [all, odd] = await Promise.all([
      Promise.race([posts.listFor(null, { q: 'user:stalled', limit: 24 }), gaveUp]),
      Promise.race([posts.matching(undefined, { q: 'user:stalled odd', limit: 24 }), gaveUp]),
    ]);
    clearTimeout(timer);
    const ms = performance.now() - started;
    assert.ok(all !== null && odd !== null, 'answered although the core never did');
    assert.ok(ms < 5_000, `answered in ${ms.toFixed(0)} ms`);
    const list = JSON.parse(String(all)) as { posts: { id: string }[]; totalPosts: number };
    assert.deepEqual(
      list.posts.map((p) => Number(p.id)),
      [...ids].reverse(),
    );
    assert.equal(list.totalPosts, 5);
    assert.deepEqual(odd, ids.filter((_, i) => i % 2).reverse());
  });
});

test('a core asked with a deadline: past it the thread answers itself, and keeps doing so at once until the core answers the late call', async () => {
  const asked: ((v: unknown) => void)[] = [];
  const answer = (from: string) => ({ plan: from, version: 1, newestId: 0 }) as unknown as Awaited<ReturnType<EngineCore['searchAt']>>;
  const never = () => new Promise<never>(() => {});
  const remote: EngineCore = {
    searchAt: () => new Promise((resolve) => asked.push(resolve as (v: unknown) => void)),
    countsOf: never,
    memory: never,
    warm: never,
  };
  const local: EngineCore = { searchAt: async () => answer('local'), countsOf: never, memory: never, warm: never };
  const core = answeredWithin(remote, local, 200);
  const timed = async () => {
    const started = performance.now();
    const { plan } = await core.searchAt({}, undefined);
    return { from: plan as unknown as string, ms: performance.now() - started };
  };

  const first = await timed();
  assert.equal(first.from, 'local');
  assert.ok(first.ms >= 190, `the first waited out its deadline (${first.ms.toFixed(0)} ms)`);
  const second = await timed();
  assert.deepEqual([second.from, asked.length], ['local', 1], 'the second was not sent to the core');
  assert.ok(second.ms < 100, `and was answered at once (${second.ms.toFixed(0)} ms)`);

  // The core answers the late call: the next call is its again.
  asked[0](answer('late'));
  await new Promise((resolve) => setImmediate(resolve));
  const third = core.searchAt({}, undefined);
  assert.equal(asked.length, 2, 'the third was sent to the core');
  asked[1](answer('remote'));
  assert.equal((await third).plan as unknown as string, 'remote');
});
