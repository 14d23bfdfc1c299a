/**
 * `/healthz` and `/readyz` for load balancers and orchestrators, answered before Host checks and auth (a
 * probe comes with the balancer's own Host and no token, and learns nothing but up/ready). Healthy: the
 * process serves. Ready: what it serves is loaded (`ready()`), and it is not draining.
 */
export function probeResponse(
  pathname: string,
  ready: (() => boolean) | undefined,
  draining: boolean,
): Response | undefined {
  if (pathname === '/healthz') return text(200, 'ok');
  if (pathname !== '/readyz') return undefined;
  if (draining) return text(503, 'draining');
  return (ready?.() ?? true) ? text(200, 'ready') : text(503, 'not ready');
}

/** What a request gets once draining started: the balancer sends it to another replica. */
export const drainingResponse = () =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Draining' } }), {
    status: 503,
    headers: { 'content-type': 'application/json', connection: 'close', 'retry-after': '1' },
  });

const text = (status: number, body: string) =>
  new Response(`${body}\n`, {
    status,
    headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' },
  });

/**
 * Requests being answered (not open SSE GET streams: those last as long as the client likes), so a drain
 * waits for the calls in progress and no longer.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  /** Counts a request; call the returned function once when its answer is written (or it failed). */
  begin(): () => void {
    this.count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Resolves when nothing is in flight, or after `ms`; true when it emptied. */
  async idle(ms: number): Promise<boolean> {
    if (this.count === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const emptied = new Promise<boolean>((resolve) => this.waiters.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([emptied, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
