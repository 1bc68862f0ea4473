import { Command, Option } from 'commander';
import { AUDIT_ACTIONS } from '../../src/lib/audit-actions.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { resolveKind } from '../kinds.js';
import type { Io } from '../io.js';
import { table, toYaml } from '../output.js';

interface AuditFlags {
  user?: string;
  kind?: string;
  project?: string;
  action?: string;
  since?: string;
  until?: string;
  limit?: string;
  all?: boolean;
  watch?: boolean;
  output: string;
}

// biome-ignore lint/suspicious/noExplicitAny: audit entries as the server sent them, printed field by field
type Entry = Record<string, any>;

const DURATION = /^(\d+)(s|m|h|d|w)$/;
const UNIT: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `dashctl audit`: the server's audit log, newest first, filtered (--user, --kind, -p, --action,
 * --since/--until as a time or a duration ago), one page (--limit) or every page (--all);
 * `--watch` streams new entries.
 */
export function makeAuditCommand(env: Env): Command {
  return new Command('audit')
    .description('show the audit log: who wrote, logged in or was refused what, when, from where (needs read on AuditEvent)')
    .option('--user <name>', 'only this user or service account (sa:<project>/<name>)')
    .option('--kind <kind>', 'only this kind (any spelling dashctl accepts)')
    .option('-p, --project <name>', 'only this project')
    .addOption(new Option('--action <action>', 'only this action').choices(AUDIT_ACTIONS))
    .option('--since <time>', 'from this time (RFC 3339) or this long ago (30m, 2h, 7d)')
    .option('--until <time>', 'before this time (RFC 3339) or this long ago')
    .option('--limit <n>', 'entries per page (default 100)')
    .option('--all', 'every page, not only the first')
    .option('-w, --watch', 'stream new entries until interrupted')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'yaml']).default('table'))
    .action(async (flags: AuditFlags) => {
      const ctx = env.ctx();
      const api = ctx.client();
      const query: Record<string, string> = {};
      if (flags.user) query.user = flags.user;
      if (flags.kind) query.kind = resolveKind(flags.kind).kind;
      if (flags.project) query.project = flags.project;
      if (flags.action) query.action = flags.action;
      if (flags.since) query.from = when(flags.since, '--since');
      if (flags.until) query.to = when(flags.until, '--until');
      if (flags.limit) query.limit = flags.limit;
      if (flags.watch)
        return api.stream(
          '/api/v1/audit',
          { ...query, watch: 'true' },
          (ev: Entry) => ev.type === 'ADDED' && print(ctx.io, [ev.object], flags.output, false),
        );
      const entries: Entry[] = [];
      let path: string | undefined = `/api/v1/audit?${new URLSearchParams(query)}`;
      while (path) {
        const res = await api.call<Entry[]>('GET', path);
        entries.push(...res.body);
        const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '');
        path = flags.all && next ? next[1] : undefined;
      }
      print(ctx.io, entries, flags.output, true);
    });
}

/** An RFC 3339 time, or a duration ago. */
function when(text: string, flag: string): string {
  const m = DURATION.exec(text);
  if (m) return new Date(Date.now() - Number(m[1]) * UNIT[m[2]]).toISOString();
  if (!Number.isNaN(Date.parse(text)) && /^\d{4}-\d{2}-\d{2}T/.test(text)) return text;
  throw new CliError(`${flag} takes an RFC 3339 time (2030-01-31T00:00:00Z) or a duration ago (30m, 2h, 7d), not ${JSON.stringify(text)}`);
}

function print(io: Io, entries: Entry[], format: string, header: boolean): void {
  if (format === 'json') {
    io.out(entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : ''));
    return;
  }
  if (format === 'yaml') {
    io.out(toYaml(entries));
    return;
  }
  const rows = entries.map((e) => [
    e.time,
    e.user,
    (e.action === 'denied' ? `denied ${e.deniedAction}` : e.action) + (e.count !== undefined ? ` ×${e.count}` : ''),
    [e.kind, e.project, e.name].filter((x) => x !== undefined).join('/') || '-',
    e.versionBefore !== undefined || e.versionAfter !== undefined ? `${e.versionBefore ?? ''}->${e.versionAfter ?? ''}` : '-',
    e.manager ?? e.provider ?? '-',
    e.source ?? '-',
  ]);
  const text = table(['TIME', 'USER', 'ACTION', 'OBJECT', 'VERSION', 'THROUGH', 'SOURCE'], rows);
  io.out(header ? text : text.split('\n').slice(1).join('\n'));
}
