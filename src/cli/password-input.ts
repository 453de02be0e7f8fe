// A password for `imageboard user create` without putting it on the command line, where the
// process list and the shell's history would keep it.

interface TtyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class PasswordCancelled extends Error {}

/** Asks on the terminal with echo off; Enter ends it, Ctrl-C cancels. */
export function promptHidden(question: string, input: TtyInput, output: { write(text: string): unknown }): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(question);
    input.setRawMode?.(true);
    input.setEncoding('utf8');
    input.resume();
    let value = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string | Buffer) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new PasswordCancelled('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    input.on('data', onData);
  });
}

/** All of standard input, without the one line ending `echo` adds. */
export async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}

/**
 * The new account's password: asked twice on a terminal, else read from standard input
 * (`echo "$PW" | imageboard user create alice`). Null with a reason when there is none.
 */
export async function readNewPassword(
  username: string,
  input: TtyInput,
  output: { write(text: string): unknown },
): Promise<{ password: string } | { problem: string }> {
  if (!input.isTTY) {
    const password = await readAll(input);
    return password
      ? { password }
      : { problem: 'No password on standard input: pipe one in (echo "$PASSWORD" | imageboard user create <username>) or run in a terminal to be asked.' };
  }
  const password = await promptHidden(`Password for ${username}: `, input, output);
  if (!password) return { problem: 'No password given.' };
  const again = await promptHidden('The same password again: ', input, output);
  return again === password ? { password } : { problem: 'The two passwords differ; nothing was created.' };
}
