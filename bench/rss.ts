import fs from 'node:fs';

/**
 * Resident memory of a process tree (the server's supervisor and its cluster workers), read
 * from /proc/<pid>/status (VmRSS) every ~200 ms. Linux only; elsewhere it reports null.
 */

/** The fields of /proc/<pid>/stat after the command name (the state first), or null when it is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces or parentheses: fields follow the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The parent of a process, or null when it is gone. */
export function parentOf(pid: number): number | null {
  const f = statFields(pid);
  return f ? Number(f[1]) : null;
}

/** The pid and every live descendant. */
export function processTree(root: number): number[] {
  let pids: number[];
  try {
    pids = fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [root];
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent === null) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length > 0 && out.length < 10_000) {
    const pid = todo.pop()!;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** VmRSS of one process in bytes, or 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process tree has used so far; null without /proc. */
export function treeCpuSeconds(root: number): number | null {
  if (!fs.existsSync(`/proc/${root}/stat`)) return null;
  return cpuSecondsOf(processTree(root));
}

/** CPU seconds (user + system) the processes have used so far (those gone count nothing). */
export function cpuSecondsOf(pids: number[]): number {
  let seconds = 0;
  for (const pid of pids) seconds += cpuSecondsOfPid(pid) ?? 0;
  return seconds;
}

/** CPU seconds (user + system) one process has used so far; null when it is gone. */
export function cpuSecondsOfPid(pid: number): number | null {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / 100 : null; // utime, stime (fields 14 and 15); USER_HZ is 100 on Linux
}

export interface RssSampler {
  /** Stops sampling; the highest sum seen, in bytes (null where /proc is missing). */
  stop(): { peakBytes: number | null; samples: number; processes: number };
  /** The highest sum seen since the last lap (or the start), in bytes; null where /proc is missing. */
  lap(): number | null;
}

/** RSS summed over the processes of `tree` (a process tree, processTree's). */
export const treeRss = (tree: number[]): number => tree.reduce((s, pid) => s + rssOf(pid), 0);

export function sampleRss(root: number, everyMs = 200): RssSampler {
  if (!fs.existsSync(`/proc/${root}/status`)) return { stop: () => ({ peakBytes: null, samples: 0, processes: 0 }), lap: () => null };
  let peak = 0;
  let lapPeak = 0;
  let samples = 0;
  let processes = 0;
  let tree = processTree(root);
  const take = () => {
    // The tree is re-read now and then: workers start after the supervisor and may be replaced.
    if (samples % 10 === 0) tree = processTree(root);
    const sum = treeRss(tree);
    processes = Math.max(processes, tree.length);
    peak = Math.max(peak, sum);
    lapPeak = Math.max(lapPeak, sum);
    samples++;
  };
  take();
  const timer = setInterval(take, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      take();
      return { peakBytes: peak, samples, processes };
    },
    lap() {
      take();
      const out = lapPeak;
      lapPeak = 0;
      return out;
    },
  };
}

/** CPU seconds (user + system) used so far by every process named `comm` (e.g. 'postgres': the database server's backends); null without /proc. */
export function namedCpuSeconds(comm: string): number | null {
  if (!fs.existsSync('/proc/self/stat')) return null;
  const named = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === comm;
      } catch {
        return false;
      }
    });
  return cpuSecondsOf(named.map(Number));
}
