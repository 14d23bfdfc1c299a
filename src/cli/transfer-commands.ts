import type { Command } from 'commander';
import {
  CLIENT_IDS,
  type ClientId,
  exportServers,
  importServers,
  isClientId,
  type Scope,
  type ServerNote,
} from '../config/index.js';
import type { CliIO } from './io.js';
import { parseScope, usage } from './options.js';

/** `import` and `export`: mcpkit's config to and from every client's own format. */
export function registerTransferCommands(program: Command, io: CliIO, _adhoc?: readonly string[]): void {
  const where = { cwd: io.cwd, env: io.env };
  const clients = CLIENT_IDS.join(', ');

  program
    .command('import')
    .description(`import servers from a client's config (${clients})`)
    .argument('<client>', 'the client to import from', parseClient)
    .option('-s, --scope <scope>', 'write into project or user scope', parseScope, 'project' as Scope)
    .option('--from <path>', "read this file instead of the client's usual locations")
    .option('--dry-run', 'show what would be imported; write nothing')
    .option('-f, --force', 'replace servers that already exist in the scope')
    .action(
      async (client: ClientId, opts: { scope: Scope; from?: string; dryRun?: boolean; force?: boolean }) => {
        const report = await importServers({
          ...where,
          client,
          scope: opts.scope,
          ...(opts.from === undefined ? {} : { from: opts.from }),
          dryRun: opts.dryRun ?? false,
          force: opts.force ?? false,
        });
        printNotes(io, report.notes);
        const count = report.imported.length;
        const verb = opts.dryRun ? 'Would import' : 'Imported';
        io.out(
          `${verb} ${count} server${count === 1 ? '' : 's'} from ${report.source} into ${opts.scope} scope (${report.target})${count > 0 ? ':' : ''}\n`,
        );
        for (const item of report.imported) {
          const renamed = item.originalName === undefined ? '' : ` (was "${item.originalName}")`;
          io.out(
            `  ${item.replaced ? '~' : '+'} ${item.name}${renamed}${item.replaced ? ' (replaced)' : ''}\n`,
          );
        }
        printSkipped(io, report.skipped);
        const written = opts.dryRun ? 'would be written' : 'written';
        for (const s of report.secrets) {
          io.err(
            `warning: ${s.name}: ${s.where} holds a secret; ${written} to ${report.target} as \${${s.variable}}: set ${s.variable} where mcpkit runs (the value is in ${report.source})\n`,
          );
        }
      },
    );

  program
    .command('export')
    .description("print servers in a client's format, or merge them into its config with --write")
    .argument('<client>', 'the client to export to', parseClient)
    .option('--write', "merge into the client's config file (atomic; keeps everything else in it)")
    .option('--to <path>', "with --write: the file to merge into instead of the client's usual one")
    .option('-s, --scope <scope>', 'export only this scope (default: every server in effect)', parseScope)
    .action(async (client: ClientId, opts: { write?: boolean; to?: string; scope?: Scope }) => {
      if (opts.to !== undefined && !opts.write) usage('--to names the file --write merges into; add --write');
      const report = await exportServers({
        ...where,
        client,
        write: opts.write ?? false,
        ...(opts.to === undefined ? {} : { to: opts.to }),
        ...(opts.scope === undefined ? {} : { scope: opts.scope }),
      });
      for (const warning of report.warnings) io.err(`warning: ${warning}\n`);
      printNotes(io, report.notes);
      if (!opts.write) {
        io.out(report.text);
      } else {
        const names = report.exported.map((e) =>
          e.unchanged ? `${e.name} (unchanged)` : e.replaced ? `${e.name} (replaced)` : e.name,
        );
        const count = `${names.length} server${names.length === 1 ? '' : 's'}`;
        if (report.written) io.out(`Exported ${count} to ${report.target}: ${names.join(', ')}\n`);
        else if (names.length > 0) {
          io.out(
            `Nothing changed: ${report.target} already holds ${count} as they are (${names.join(', ')})\n`,
          );
        } else io.out(`Nothing to export; ${report.target} left as it was\n`);
      }
      printSkipped(io, report.skipped);
    });
}

function parseClient(value: string): ClientId {
  if (isClientId(value)) return value;
  return usage(`unknown client "${value}"; one of: ${CLIENT_IDS.join(', ')}`);
}

function printNotes(io: CliIO, notes: ServerNote[]): void {
  for (const note of notes) io.err(`warning: ${note.name ? `${note.name}: ` : ''}${note.message}\n`);
}

function printSkipped(io: CliIO, skipped: ServerNote[]): void {
  if (skipped.length === 0) return;
  io.err(`Skipped ${skipped.length}:\n`);
  for (const item of skipped) io.err(`  - ${item.name}: ${item.message}\n`);
}
