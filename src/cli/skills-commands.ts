import { resolve } from 'node:path';
import type { Command } from 'commander';
import { installSkill, readSkill, SKILLS_EXTENSION_ID } from '../client/index.js';
import { McpkitError } from '../errors/index.js';
import { count } from './format.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';
import { listAcross } from './server-commands.js';
import { only, request, rows, withRuntime } from './server-runtime.js';
import { resolveTargets } from './target.js';

/**
 * `mcpkit skills [server]` and `mcpkit skill <server> <uri> [--install <dir>]`: the skills a server serves
 * (the Skills extension, SEP-2640), one skill's files (each verified against its digest), and a skill
 * installed as a folder an agent reads skills from (Claude Code: `.claude/skills`).
 */
export function registerSkillsCommands(
  program: Command,
  io: CliIO,
  adhoc: readonly string[] | undefined,
): void {
  const hasAdhoc = adhoc !== undefined && adhoc.length > 0;

  program
    .command('skills')
    .description('list the skills of one server, or of every configured server')
    .argument('[server]', 'configured name or URL; omit for all (or give -- <command…>)')
    .option('--json', 'print JSON (each skill entry whole, with its files and digests)')
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        fetch: async (s) => {
          const listing = await s.skills.list();
          return {
            supported: s.skills.supported,
            skills: listing.skills,
            ...(listing.invalid.length > 0 ? { invalid: listing.invalid } : {}),
          };
        },
        render: (s, { supported, skills, invalid }) =>
          !supported
            ? `${s.id}: serves no skills (it does not declare the ${SKILLS_EXTENSION_ID} extension)\n`
            : `${s.id} (${count(skills.length, 'skill')})\n` +
              rows(
                skills.map((skill) => ['', skill.frontmatter.name, skill.uri, skill.frontmatter.description]),
              ) +
              (invalid ?? [])
                .map((bad) => `  left out ${bad.uri ?? `#${bad.index}`}: ${bad.reason}\n`)
                .join(''),
      }),
    );

  program
    .command('skill')
    .description("print a skill's SKILL.md and files, or install it: skill <server> <uri> [--install <dir>]")
    .argument('[args...]', '<server> <uri> (leave out <server> with -- <command…>)')
    .option('--install <dir>', 'write the skill as <dir>/<name>/ (e.g. .claude/skills), digests verified')
    .option('--force', 'with --install: replace a folder of that name')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
  mcpkit skill docs skill://pdf/SKILL.md                          SKILL.md, then each file
  mcpkit skill docs skill://pdf/SKILL.md --install .claude/skills writes .claude/skills/pdf/
`,
    )
    .action(async (args: string[], opts: { install?: string; force?: boolean; json?: boolean }) => {
      const [server, uri, ...extra] = hasAdhoc ? [undefined, ...args] : args;
      if (!hasAdhoc && server === undefined)
        usage('skill: missing <server> (a configured name, a URL, or -- <command…>)');
      if (uri === undefined)
        usage('skill: missing <uri> (the URI of its SKILL.md, as `mcpkit skills` lists it)');
      if (extra.length > 0) usage(`skill: unexpected arguments: ${extra.join(' ')}`);
      if (opts.force && opts.install === undefined) usage('skill: --force goes with --install <dir>');
      await withRuntime(io, await resolveTargets(io, server, adhoc), 'fail-fast', async (runtime, signal) => {
        const s = only(runtime);
        if (!s.skills.supported)
          throw new McpkitError(
            'REQUEST_FAILED',
            `server "${s.id}" serves no skills (it does not declare the ${SKILLS_EXTENSION_ID} extension)`,
            { server: s.id },
          );
        if (opts.install !== undefined) {
          const dir = resolve(io.cwd, opts.install);
          const done = await request(s, `skill ${uri}`, () =>
            installSkill(s.skills, uri, dir, { signal, force: opts.force === true }),
          );
          const bytes = done.files.reduce((sum, f) => sum + f.bytes.byteLength, 0);
          if (opts.json)
            io.out(
              `${JSON.stringify({ folder: done.folder, files: done.files.map((f) => f.path) }, null, 2)}\n`,
            );
          else
            io.out(
              `installed skill "${done.skill.frontmatter.name}" in ${done.folder} ` +
                `(${count(done.files.length, 'file')}, ${bytes} bytes, digests verified)\n`,
            );
          return;
        }
        const read = await request(s, `skill ${uri}`, () => readSkill(s.skills, uri, { signal }));
        if (opts.json) {
          const files = read.files.map(({ path, uri, mimeType, bytes, text, verified }) => ({
            path,
            uri,
            ...(mimeType ? { mimeType } : {}),
            size: bytes.byteLength,
            verified,
            ...(text === undefined ? { base64: Buffer.from(bytes).toString('base64') } : { text }),
          }));
          io.out(`${JSON.stringify({ skill: read.skill, files }, null, 2)}\n`);
          return;
        }
        for (const [index, file] of read.files.entries()) {
          const shown = file.text ?? `(${file.mimeType ?? 'binary'}, ${file.bytes.byteLength} bytes)\n`;
          io.out(
            `${index === 0 ? '' : '\n'}==> ${file.path} (${file.bytes.byteLength} bytes, digest verified)\n`,
          );
          io.out(shown.endsWith('\n') ? shown : `${shown}\n`);
        }
      });
    });
}
