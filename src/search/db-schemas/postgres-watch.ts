// --db-watch for PostgreSQL: an event trigger that NOTIFYs after every DDL command, and a connection that
// LISTENs for it. Installing the trigger writes to the database (a function and an event trigger, both named
// mcpkit_search_*), which is why it is opt-in; it needs a superuser (PostgreSQL's rule for event triggers).
import type { Client as PgClient } from 'pg';
import { importOptional } from '../../internal/optional-dependency.js';
import { DB_TIMEOUTS, dbFailure } from './db-failure.js';
import type { DbTarget } from './db-target.js';

/** The channel the event trigger notifies on. */
export const DDL_CHANNEL = 'mcpkit_search_ddl';

const INSTALL = [
  `CREATE OR REPLACE FUNCTION public.mcpkit_search_notify_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
   BEGIN PERFORM pg_notify('${DDL_CHANNEL}', tg_tag); END $$`,
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'mcpkit_search_ddl') THEN
       CREATE EVENT TRIGGER mcpkit_search_ddl ON ddl_command_end EXECUTE FUNCTION public.mcpkit_search_notify_ddl();
     END IF;
   END $$`,
];

/**
 * Installs the trigger (once) and calls `onChange` after each DDL command, until closed; `onLost` once if the
 * connection drops (a server restart).
 */
export async function watchPostgres(
  target: DbTarget,
  onChange: () => void,
  onLost: (error: Error) => void,
): Promise<{ close(): Promise<void> }> {
  const { default: pg } = await importOptional('pg', () => import('pg'));
  const client: PgClient = new pg.Client({
    connectionString: target.location,
    connectionTimeoutMillis: DB_TIMEOUTS.connectMs,
    statement_timeout: DB_TIMEOUTS.statementMs,
    application_name: 'mcpkit-search-watch',
  });
  // Reported once, and only once watching: a failure to set up is thrown instead.
  let watching = false;
  client.on('error', (error) => {
    if (watching) onLost(dbFailure(target, error));
    watching = false;
  });
  try {
    await client.connect();
    for (const sql of INSTALL) await client.query(sql);
    await client.query(`LISTEN ${DDL_CHANNEL}`);
  } catch (error) {
    await client.end().catch(() => undefined);
    const failure = dbFailure(target, error);
    if ((error as { code?: string }).code === '42501')
      failure.message = `installing the event trigger in ${target.shown} needs a superuser; use --db-refresh SECONDS instead`;
    throw failure;
  }
  watching = true;
  client.on('notification', (message) => {
    if (message.channel === DDL_CHANNEL) onChange();
  });
  return { close: () => client.end().catch(() => undefined) };
}
