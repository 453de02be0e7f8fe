/** A cap on work in flight: the Danbooru import's requests, the live streams' searches of a new post. */

export interface Semaphore {
  /** Waits for a free slot; the function it gives back frees it (calling it twice frees it once). */
  acquire(): Promise<() => void>;
}

/** At most `size` holders at once, served in the order they asked. */
export function semaphore(size: number): Semaphore {
  let free = Math.max(1, Math.floor(size));
  const waiting: (() => void)[] = [];
  return {
    async acquire() {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        // The slot passes straight to the next in line, so a newcomer cannot overtake it.
        const next = waiting.shift();
        if (next) next();
        else free++;
      };
    },
  };
}
