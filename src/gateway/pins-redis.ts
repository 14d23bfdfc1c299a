import { hashEntries, type RedisCommands } from '../serve/index.js';
import type { PinBackend, PinRecord, PinSighting, PinTable } from './pins.js';

const SERVERS = 'mcpkit:pins';
/** Replicas listen here: a `trust` on any machine makes every gateway re-read its pins. */
export const PINS_CHANNEL = 'mcpkit:pins-trusted';

// One server's pins replaced whole, atomically: a replica reading at the same time sees old or new, never half.
// No pins removes the server (a name-keyed table of an older mcpkit, moved to its server's identity).
const REPLACE = `redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if #ARGV == 0 then redis.call('SREM', KEYS[2], KEYS[3]) else redis.call('SADD', KEYS[2], KEYS[3]) end
return 1`;

/**
 * Pins in Redis, shared by gateway replicas (`--state redis://…`): one hash per server identity
 * (`mcpkit:pins:<identity>`, tool → pin; keys of older versions are server names, see `PinStore.identify`), a first sighting written only where no pin is (HSETNX), a
 * `trust` replacing a server's hash in one script and announced on {@link PINS_CHANNEL}.
 */
export class RedisPins implements PinBackend {
  constructor(private readonly redis: RedisCommands) {}

  async read(): Promise<PinTable> {
    const servers = ((await this.redis.sendCommand(['SMEMBERS', SERVERS])) as string[]) ?? [];
    const table: PinTable = {};
    for (const server of servers) {
      const entries = hashEntries(await this.redis.sendCommand(['HGETALL', `${SERVERS}:${server}`]));
      const pins: Record<string, PinRecord> = {};
      for (const [tool, json] of entries) pins[tool] = JSON.parse(json) as PinRecord;
      table[server] = pins;
    }
    return table;
  }

  async write(
    replaced: ReadonlyMap<string, Record<string, PinRecord>>,
    added: readonly PinSighting[],
  ): Promise<PinTable> {
    for (const [server, pins] of replaced) {
      const args = Object.entries(pins).flatMap(([tool, pin]) => [tool, JSON.stringify(pin)]);
      await this.redis.sendCommand(['EVAL', REPLACE, '3', `${SERVERS}:${server}`, SERVERS, server, ...args]);
    }
    for (const { server, tool, pin } of added) {
      await this.redis.sendCommand(['HSETNX', `${SERVERS}:${server}`, tool, JSON.stringify(pin)]);
      await this.redis.sendCommand(['SADD', SERVERS, server]);
    }
    if (replaced.size > 0)
      await this.redis.sendCommand(['PUBLISH', PINS_CHANNEL, [...replaced.keys()].join(',')]);
    return this.read();
  }
}
