import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Coalescer } from './coalesce.ts';

/** A Coalescer over a fake statement that the test answers by hand, batch by batch. */
function harness(maxBatch?: number) {
  const sent: { inputs: number[]; answer: () => void; fail: (e: Error) => void }[] = [];
  const c = new Coalescer<number, string>(
    (inputs) =>
      new Promise((resolve, reject) => {
        sent.push({ inputs, answer: () => resolve(inputs.map((i) => `row ${i}`)), fail: reject });
      }),
    maxBatch,
  );
  return { c, sent };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a call alone goes at once; calls made while it is out go together in the next batch, each answered with its own row', async () => {
  const { c, sent } = harness();
  const first = c.run(1);
  assert.deepEqual(
    sent.map((s) => s.inputs),
    [[1]],
    'the first call is sent before run returns',
  );
  const rest = [c.run(2), c.run(3), c.run(4)];
  await tick();
  assert.equal(sent.length, 1, 'nothing more is sent while a batch is out');
  sent[0].answer();
  assert.equal(await first, 'row 1');
  await tick();
  assert.deepEqual(
    sent.map((s) => s.inputs),
    [[1], [2, 3, 4]],
  );
  sent[1].answer();
  assert.deepEqual(await Promise.all(rest), ['row 2', 'row 3', 'row 4']);
});

test('a call is answered only by a batch sent after it was made', async () => {
  const { c, sent } = harness();
  const early = c.run(1);
  const late = c.run(2);
  sent[0].answer();
  await early;
  await tick();
  assert.deepEqual(sent[1].inputs, [2], 'the call made while the first batch was out went in the second');
  sent[1].answer();
  assert.equal(await late, 'row 2');
});

test('a failing batch fails each of its calls, and the next batch still goes', async () => {
  const { c, sent } = harness();
  const a = c.run(1);
  const b = c.run(2);
  const d = c.run(3);
  sent[0].fail(new Error('connection lost'));
  await assert.rejects(a, /connection lost/);
  await tick();
  sent[1].fail(new Error('statement timeout'));
  await assert.rejects(b, /statement timeout/);
  await assert.rejects(d, /statement timeout/);
  const e = c.run(4);
  sent[2].answer();
  assert.equal(await e, 'row 4');
});

test('a batch holds at most maxBatch calls; the rest go in the batches after it', async () => {
  const { c, sent } = harness(2);
  const all = [1, 2, 3, 4, 5, 6].map((i) => c.run(i));
  for (let i = 0; i < 4; i++) {
    sent[i].answer();
    await tick();
  }
  assert.deepEqual(
    sent.map((s) => s.inputs),
    [[1], [2, 3], [4, 5], [6]],
  );
  assert.deepEqual(await Promise.all(all), ['row 1', 'row 2', 'row 3', 'row 4', 'row 5', 'row 6']);
});
