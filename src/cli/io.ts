/** What a command needs from the process: output streams, working directory and environment. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The real process's IO. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
  };
}
