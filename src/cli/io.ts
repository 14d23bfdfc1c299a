/** What a command needs from the process: output streams, input, working directory and environment. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Standard input, for `call … -` and interactive elicitation. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** True when stderr is a terminal (progress bars, prompts). */
  stderrIsTTY: boolean;
}

/** The real process's IO. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    stdin: process.stdin,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** Reads all of a stream as UTF-8. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}
