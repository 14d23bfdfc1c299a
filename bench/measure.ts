// Timing helpers shared by the benchmarks.

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
