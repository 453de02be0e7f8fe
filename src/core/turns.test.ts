import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { test } from 'node:test';
import { takeTurns } from './turns.ts';

/**
 * A message posted when the first request runs stands for what a worker answers when it is handed a
 * connection: it arrives through the event loop, so it is read only when the loop next polls.
 */
async function runThree(busy: boolean): Promise<string[]> {
  const seen: string[] = [];
  const { port1, port2 } = new MessageChannel();
  port2.on('message', (m) => seen.push(`message ${m}`));
  const turn = takeTurns(() => busy);
  const all = ['a', 'b', 'c'].map(
    (name) =>
      new Promise<void>((resolve) =>
        turn(() => {
          seen.push(`request ${name}`);
          if (name === 'a') port1.postMessage('sent during a');
          resolve();
        }),
      ),
  );
  await Promise.all(all);
  await new Promise((r) => setTimeout(r, 20));
  port1.close();
  return seen;
}

test('while busy, requests run one per turn in the order they came, and a message sent meanwhile is read before the next', async () => {
  assert.deepEqual(await runThree(true), ['request a', 'message sent during a', 'request b', 'request c']);
});

test('when not busy, requests run at once, as they come', async () => {
  assert.deepEqual(await runThree(false), ['request a', 'request b', 'request c', 'message sent during a']);
});

test('a request that comes while others still wait for their turn waits behind them, busy or not', async () => {
  let busy = true;
  const seen: string[] = [];
  const turn = takeTurns(() => busy);
  const run = (name: string) =>
    new Promise<void>((resolve) =>
      turn(() => {
        seen.push(name);
        resolve();
      }),
    );
  const done = [run('first')];
  busy = false;
  done.push(run('second'));
  assert.deepEqual(seen, [], 'the second did not jump the queue');
  await Promise.all(done);
  assert.deepEqual(seen, ['first', 'second']);
});
