import type { Deps } from '../../core/deps.ts';
import { applyBoard, type BoardOutcome } from './import-board.ts';
import type { ImportItem, ImportSource } from './import-item.ts';
import { createImportWriter, type Outcome, type WriterOptions } from './import-writer.ts';

/** One line of the report file: an item that was not simply imported, or that came in with a warning. */
export interface ReportLine {
  item: string;
  status: Outcome['status'] | 'unreadable' | 'warning';
  reason: string;
  origin?: string;
  originId?: string | null;
  postId?: string;
}

export interface ImportSummary {
  read: number;
  imported: number;
  matched: number;
  skipped: number;
  failed: number;
  unreadable: number;
  board: BoardOutcome;
  seconds: number;
}

export interface RunOptions extends WriterOptions {
  /** Items checked and stored side by side: decoding and thumbnails use the cores while the database writes. */
  concurrency: number;
  report(line: ReportLine): void;
  /** After each item: how many are done. */
  progress(done: number): void;
}

/**
 * Reads a source front to back and writes each post (import-writer.ts), `concurrency` at a time,
 * then its board-wide data (import-board.ts). Nothing a source says stops the import: an item that
 * cannot be read or written is reported with its reason and the rest go on.
 */
export async function runImport(deps: Deps, source: ImportSource, opts: RunOptions): Promise<ImportSummary> {
  const started = performance.now();
  const writer = createImportWriter(deps, opts);
  const counts = { read: 0, imported: 0, matched: 0, skipped: 0, failed: 0, unreadable: 0 };
  const entries = source.entries()[Symbol.asyncIterator]();
  const worker = async () => {
    for (;;) {
      const next = await entries.next();
      if (next.done) return;
      const entry = next.value;
      counts.read++;
      if (entry.kind === 'problem') {
        counts.unreadable++;
        opts.report({ item: entry.problem.label, status: 'unreadable', reason: entry.problem.reason });
      } else {
        const outcome = await writer.write(entry.item);
        counts[outcome.status]++;
        reportOutcome(opts, entry.item, outcome);
      }
      opts.progress(counts.read);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  const board = await applyBoard(deps, opts.user, await source.board(), writer.pendingParents, opts.dryRun);
  for (const p of board.problems) opts.report({ item: p.label, status: 'failed', reason: p.reason });
  return { ...counts, board, seconds: (performance.now() - started) / 1000 };
}

function reportOutcome(opts: RunOptions, item: ImportItem, outcome: Outcome): void {
  const where = { origin: item.origin, originId: item.originId };
  const postId = 'postId' in outcome && outcome.postId !== null ? { postId: String(outcome.postId) } : {};
  if (outcome.status === 'failed') opts.report({ item: item.label, status: 'failed', reason: outcome.reason, ...where });
  if (outcome.status === 'skipped') opts.report({ item: item.label, status: 'skipped', reason: outcome.reason, ...where, ...postId });
  if (outcome.status === 'matched') {
    const reason = `the board has these bytes as post ${outcome.postId}: ${outcome.tagsAdded} tag(s) added to it`;
    opts.report({ item: item.label, status: 'matched', reason, ...where, ...postId });
  }
  for (const w of outcome.warnings) opts.report({ item: item.label, status: 'warning', reason: w, ...where, ...postId });
}
