/**
 * The stderr logger. stdout belongs to protocol frames and command output, so every diagnostic goes
 * through here. Messages are single lines prefixed with their level.
 */
export interface Logger {
  warn(message: string): void;
  error(message: string): void;
  info(message: string): void;
}

/** A logger writing `level: message` lines to a stream (stderr by default). */
export function createLogger(stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (level: string) => (message: string) => {
    stream.write(`${level}: ${message}\n`);
  };
  return { warn: write('warning'), error: write('error'), info: write('info') };
}
