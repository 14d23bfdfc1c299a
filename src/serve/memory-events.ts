import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** How many events one session keeps for replay, and about how many bytes of them; older ones go first. */
const KEPT = 200;
const KEPT_BYTES = 512 * 1024;
/** An event larger than this is not kept at all (a stream that drops during it cannot replay it). */
const LARGEST = 4 * 1024 * 1024;

/**
 * What every session of the process keeps, together: when the sum passes `limit`, the session keeping the most
 * gives up its oldest events first, so many sessions cannot add up to more than this.
 */
export interface EventBudget {
  limit: number;
  used: number;
  stores: Set<MemoryEventStore>;
}

/** The process's budget: 32 MiB of replayable events across all sessions. */
export const PROCESS_EVENT_BUDGET: EventBudget = { limit: 32 * 1024 * 1024, used: 0, stores: new Set() };

/**
 * One 2025 session's SSE events, in memory, for a client that reconnects with `Last-Event-ID` (SEP-1699:
 * SSE polling and resumption). With an event store the SDK opens every SSE stream of the session with a
 * priming event (an id, empty data, and the `retry` the session gives), so a client whose stream drops
 * mid-call knows where to resume. Replicas share theirs in Redis instead (`SessionEventStore`); a single
 * process keeps the last {@link KEPT} events of each session, at most {@link KEPT_BYTES} of them (the
 * latest event and the latest answer always, unless over {@link LARGEST}), and all sessions together at most their {@link EventBudget};
 * `dispose()` with the session gives its share back.
 */
export class MemoryEventStore implements EventStore {
  private readonly events: {
    id: EventId;
    streamId: StreamId;
    message: JSONRPCMessage;
    size: number;
    answer: boolean;
  }[] = [];
  private bytes = 0;
  private counter = 0;

  constructor(private readonly budget: EventBudget = PROCESS_EVENT_BUDGET) {}

  /** Bytes of events kept. */
  get kept(): number {
    return this.bytes;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}/${++this.counter}`;
    // The priming event has nothing to replay: only its id is needed.
    if (Object.keys(message).length === 0) return id;
    const size = JSON.stringify(message).length;
    if (size > LARGEST) return id;
    this.budget.stores.add(this);
    this.events.push({ id, streamId, message, size, answer: isAnswer(message) });
    this.bytes += size;
    this.budget.used += size;
    // The session's latest answer stays: a notification after it (a `list_changed` sent to every session, a log
    // line) must not push out the one event a client whose stream dropped mid-call is waiting for.
    while (this.events.length > 1 && (this.events.length > KEPT || this.bytes > KEPT_BYTES))
      if (!this.dropOldest(this.latestAnswer())) break;
    while (this.budget.used > this.budget.limit) {
      let largest: MemoryEventStore | undefined;
      for (const store of this.budget.stores) if (!largest || store.bytes > largest.bytes) largest = store;
      if (!largest || largest.events.length === 0) break;
      largest.dropOldest(-1);
    }
    return id;
  }

  /** Gives the session's events up (the session ended). */
  dispose(): void {
    this.budget.used -= this.bytes;
    this.bytes = 0;
    this.events.length = 0;
    this.budget.stores.delete(this);
  }

  /** Where the session's latest answer (a result or an error) is among its events; -1 if none. */
  private latestAnswer(): number {
    for (let at = this.events.length - 1; at >= 0; at--) if (this.events[at]?.answer) return at;
    return -1;
  }

  /**
   * Drops the oldest event but the one at `keep` (-1: none) and, when keeping one, the newest; false when no other
   * is left.
   */
  private dropOldest(keep: number): boolean {
    const at = keep === 0 ? 1 : 0;
    if (at >= this.events.length || (keep >= 0 && at === this.events.length - 1)) return false;
    const size = this.events.splice(at, 1)[0]?.size ?? 0;
    this.bytes -= size;
    this.budget.used -= size;
    if (this.events.length === 0) this.budget.stores.delete(this);
    return true;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return streamOf(eventId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = streamOf(lastEventId);
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf('/') + 1));
    if (streamId === undefined || !Number.isSafeInteger(after))
      throw new Error(`not an event id of this session: ${lastEventId}`);
    for (const event of this.events) {
      if (event.streamId !== streamId) continue;
      if (Number(event.id.slice(event.id.lastIndexOf('/') + 1)) > after) await send(event.id, event.message);
    }
    return streamId;
  }
}

/** A response to a request: what a client resuming a call's stream needs most. */
function isAnswer(message: JSONRPCMessage): boolean {
  return 'id' in message && ('result' in message || 'error' in message);
}

function streamOf(eventId: EventId): StreamId | undefined {
  const at = eventId.lastIndexOf('/');
  return at > 0 && /^\d+$/u.test(eventId.slice(at + 1)) ? eventId.slice(0, at) : undefined;
}
