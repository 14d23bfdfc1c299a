/**
 * A fetch for the SDK's HTTP transports that gives every request its own abort signal. The SDK hands one
 * long-lived signal to every fetch; undici adds an abort listener to it per request, so a few hundred
 * concurrent calls flood `MaxListenersExceededWarning`. Here each long-lived signal gets one listener,
 * which aborts the per-request controllers still registered under it.
 */
const children = new WeakMap<AbortSignal, Set<AbortController>>();

function childSignal(parent: AbortSignal | null | undefined): { signal?: AbortSignal; release(): void } {
  if (!parent) return { release: () => undefined };
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  let set = children.get(parent);
  if (!set) {
    const created = new Set<AbortController>();
    children.set(parent, created);
    parent.addEventListener(
      'abort',
      () => {
        for (const child of created) child.abort(parent.reason);
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  set.add(controller);
  const owner = set;
  return { signal: controller.signal, release: () => owner.delete(controller) };
}

/** `fetch` with a per-request signal; streamed (SSE) bodies stay abortable until they end. */
export const requestFetch: typeof fetch = async (input, init) => {
  const { signal, release } = childSignal(init?.signal);
  let response: Response;
  try {
    response = await fetch(input, signal ? { ...init, signal } : init);
  } catch (error) {
    release();
    throw error;
  }
  const streaming = response.headers.get('content-type')?.includes('text/event-stream') ?? false;
  if (!streaming || !response.body) {
    release();
    return response;
  }
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush: release,
    }),
  );
  signal?.addEventListener('abort', release, { once: true });
  const wrapped = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(wrapped, 'url', { value: response.url });
  return wrapped;
};
