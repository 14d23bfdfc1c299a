import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Writes frames to a stream, coalescing the frames written in one turn of the event loop into one
 * `write`: under a burst of calls this is one syscall for hundreds of frames instead of one each. Order is
 * kept; everyone waiting shares one 'drain' (a listener per sender would flood MaxListenersExceeded).
 */
export class BatchedWriter {
  private queued: string[] = [];
  private flushing: Promise<void> | undefined;
  private drained: Promise<void> | undefined;

  constructor(private readonly stream: Writable) {}

  /** Queues a frame; resolves once it was handed to the stream (and the stream drained, if it was full). */
  write(frame: string): Promise<void> {
    this.queued.push(frame);
    this.flushing ??= new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => this.flush());
    return this.flushing;
  }

  private flush(): Promise<void> | undefined {
    const data = this.queued.length === 1 ? (this.queued[0] as string) : this.queued.join('');
    this.queued = [];
    this.flushing = undefined;
    if (this.stream.destroyed || this.stream.writableEnded) return undefined;
    if (this.stream.write(data)) return undefined;
    this.drained ??= once(this.stream, 'drain').then(
      () => {
        this.drained = undefined;
      },
      () => {
        this.drained = undefined;
      },
    );
    return this.drained;
  }
}
