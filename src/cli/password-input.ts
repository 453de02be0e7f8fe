// A password for `imageboard user create` without putting it on the command line, where the
// process list and the shell's history would keep it.

export interface TtyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

interface Output {
  write(text: string): unknown;
}

export class PasswordCancelled extends Error {}

/**
 * The terminal, held with echo off from the moment a command knows it will ask for a password,
 * before it opens the database. What is typed before a prompt shows is kept as the start of the
 * answer (a terminal echoes only what came before echo went off), and a second password typed
 * ahead stays for the second prompt. Enter ends an answer, Ctrl-C cancels.
 */
export class HiddenInput {
  private pending = '';
  private wake: (() => void) | null = null;
  private ended = false;
  private closed = false;
  private asking = false;

  constructor(private readonly input: TtyInput) {
    input.setRawMode?.(true);
    input.setEncoding('utf8');
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.resume();
  }

  private onData = (chunk: string | Buffer) => {
    this.pending += String(chunk);
    // Raw mode turns Ctrl-C into a character; before a prompt (the database still opening) it
    // must still stop the command, as it would have with echo on.
    if (!this.asking && this.pending.includes('\u0003')) {
      this.close();
      process.kill(process.pid, 'SIGINT');
      return;
    }
    this.wake?.();
  };

  private onEnd = () => {
    this.ended = true;
    this.wake?.();
  };

  async ask(question: string, output: Output): Promise<string> {
    this.asking = true;
    try {
      return await this.answer(question, output);
    } finally {
      this.asking = false;
    }
  }

  private async answer(question: string, output: Output): Promise<string> {
    output.write(question);
    let value = '';
    for (;;) {
      const chars = [...this.pending];
      for (const [i, ch] of chars.entries()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004' || ch === '\u0003') {
          let rest = chars.slice(i + 1).join('');
          // A paste may end its line with \r\n: one Enter, not an empty second answer.
          if (ch === '\r' && rest.startsWith('\n')) rest = rest.slice(1);
          this.pending = rest;
          output.write('\n'); // the Enter is not echoed either
          if (ch === '\u0003') throw new PasswordCancelled('cancelled');
          return value;
        }
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else value += ch;
      }
      this.pending = '';
      if (this.ended) {
        output.write('\n');
        return value;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** Echo back on; the process may exit. Safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.setRawMode?.(false);
    this.input.pause();
  }
}

/** Asks once on the terminal with echo off. */
export async function promptHidden(question: string, input: TtyInput, output: Output): Promise<string> {
  const held = new HiddenInput(input);
  try {
    return await held.ask(question, output);
  } finally {
    held.close();
  }
}

/** All of standard input, without the one line ending `echo` adds. */
export async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}

export type NewPassword = { password: string } | { problem: string };

export interface PasswordSource {
  /** The new account's password, or why there is none. */
  read(username: string): Promise<NewPassword>;
  close(): void;
}

/**
 * Where the new account's password comes from: asked twice on a terminal (echo goes off now,
 * when this is made, so make it before any awaited work), else read from standard input
 * (`echo "$PW" | imageboard user create alice`).
 */
export function passwordSource(input: TtyInput, output: Output): PasswordSource {
  if (!input.isTTY) {
    return {
      async read() {
        const password = await readAll(input);
        return password
          ? { password }
          : { problem: 'No password on standard input: pipe one in (echo "$PASSWORD" | imageboard user create <username>) or run in a terminal to be asked.' };
      },
      close() {},
    };
  }
  const held = new HiddenInput(input);
  return {
    async read(username) {
      const password = await held.ask(`Password for ${username}: `, output);
      if (!password) return { problem: 'No password given.' };
      const again = await held.ask('The same password again: ', output);
      return again === password ? { password } : { problem: 'The two passwords differ; nothing was created.' };
    },
    close: () => held.close(),
  };
}
