// Timing helpers shared by the benchmarks.

/** The p-th quantile of `xs` (nearest rank, clamped to the last). */
export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Median latency of `n` sequential calls, after a warm-up of 200. */
export async function sequentialP50(call: () => Promise<unknown>, n = 2000): Promise<number> {
  for (let i = 0; i < 200; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Median time of `rounds` bursts of `n` calls at once. */
export async function burstMs(call: () => Promise<unknown>, n = 2000, rounds = 3): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const t = performance.now();
    await Promise.all(Array.from({ length: n }, call));
    times.push(performance.now() - t);
  }
  return median(times);
}

/** Queries over the JDK's class library (the large-tree and shared-store benches ask the same ones). */
export const JDK_QUERIES = [
  'parse an HTTP date header',
  'ConcurrentHashMap',
  'compute the hash code of a string',
  'read bytes from an input stream into a buffer',
  'ZipEntry',
  'format a number with a locale',
  'resolve a relative URI against a base',
  'thread pool executor rejected task',
  'BigDecimal divide rounding mode',
  'load a class by name with a class loader',
  'TLS handshake certificate verification',
  'parse XML with a SAX handler',
  'compare two strings ignoring case',
  'ArrayList',
  'serialize an object to a stream',
  'regular expression pattern matcher groups',
  'daylight saving time zone offset',
  'Files.walk',
  'sort an array with a comparator',
  'create a temporary file',
];
