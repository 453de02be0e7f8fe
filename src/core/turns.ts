/**
 * Runs waiting requests one per turn of the event loop, while `busy()` says so. A request's work
 * runs without a break once it starts (the SQLite driver is synchronous), and every request read
 * in one turn runs before the loop reads its sockets and messages again. A connection the first
 * process hands to a worker (workers.ts) waits for the worker's answer before the next can be
 * handed over, and both answer between turns: when 16 connections opened at once on a busy
 * server, the eighth worker's connection waited about a second turn of each side per connection
 * before it (half a second with Danbooru pages of 200 posts). While connections are being handed
 * over, each request waits its turn here, so both processes look at their messages between two
 * requests. The rest of the time requests run as they come: waiting for a turn costs CPU (each
 * turn polls the sockets again) and would cost it on every request.
 */
export function takeTurns(busy: () => boolean): (done: () => void) => void {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const next = () => {
    const run = waiting.shift()!;
    // Queued before this one runs, so that it runs in the next turn, after the loop has polled.
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(next);
    run();
  };
  return (done) => {
    if (!busy() && !scheduled) return done();
    waiting.push(done);
    if (!scheduled) {
      scheduled = true;
      setImmediate(next);
    }
  };
}
