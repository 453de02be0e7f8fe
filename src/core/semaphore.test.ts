import { test } from 'node:test';
import assert from 'node:assert/strict';
import { semaphore } from './semaphore.ts';

test('a semaphore holds at most its size at once, serves waiters in the order they asked, and frees a slot once however often it is released', async () => {
  const slots = semaphore(2);
  const order: string[] = [];
  const first = await slots.acquire();
  const second = await slots.acquire();
  const waiters = ['c', 'd'].map((name) =>
    slots.acquire().then((release) => {
      order.push(name);
      return release;
    }),
  );
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, [], 'both slots are held: nobody else gets in');
  first();
  first();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['c'], 'one release lets one waiter in, the first to ask');
  second();
  const [c, d] = await Promise.all(waiters);
  assert.deepEqual(order, ['c', 'd']);
  c();
  d();
  const again = await Promise.all([slots.acquire(), slots.acquire()]);
  let third = false;
  void slots.acquire().then(() => (third = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(third, false, 'every slot given back once: two again, not more');
  for (const release of again) release();
});
