import { type Command, Option } from 'commander';
import { normaliseUrl } from '../config-file.js';
import { missingContext } from '../context.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { table } from '../output.js';
import { subject } from './login.js';

/**
 * kubectl's context verbs under `dashctl config`: get-contexts, current-context, use-context,
 * set-context, delete-context. A context is a server with its own tokens and default project.
 */
export function addContextCommands(config: Command, env: Env): void {
  config
    .command('get-contexts')
    .description('list the contexts (* marks the current one)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'name']).default('table'))
    .action((flags: { output: string }) => {
      const ctx = env.ctx();
      const entries = Object.entries(ctx.file.contexts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (flags.output === 'name') return ctx.io.out(entries.map(([n]) => `${n}\n`).join(''));
      if (!entries.length) return ctx.io.err('No contexts yet (dashctl login URL, or dashctl config set-context NAME --server URL).\n');
      const rows = entries.map(([n, c]) => [
        n === ctx.file.currentContext ? '*' : '',
        n,
        c.url ?? '',
        c.project ?? '',
        c.accessToken ? (subject(c.accessToken) ?? '(token)') : '',
      ]);
      ctx.io.out(table(['CURRENT', 'NAME', 'SERVER', 'PROJECT', 'USER'], rows));
    });
  config
    .command('current-context')
    .description('print the name of the current context')
    .action(() => {
      const ctx = env.ctx();
      if (!ctx.file.currentContext)
        throw new CliError('no current context; choose one with dashctl config use-context NAME (dashctl config get-contexts lists them)');
      ctx.io.out(`${ctx.file.currentContext}\n`);
    });
  config
    .command('use-context')
    .description('make a context the current one')
    .argument('<context>', 'context name')
    .action((name: string) => {
      const ctx = env.ctx();
      if (!ctx.file.contexts[name]) throw missingContext(name);
      ctx.update((f) => (f.currentContext = name));
      ctx.io.out(`Switched to context "${name}"${ctx.file.contexts[name].url ? ` (${ctx.file.contexts[name].url})` : ''}.\n`);
    });
  config
    .command('set-context')
    .description('create a context, or change its server or default project')
    .argument('<context>', 'context name')
    .option('--server <url>', 'server address (required for a new context; a new server forgets the tokens)')
    .option('-p, --project <name>', 'default project')
    .action((name: string, flags: { server?: string; project?: string }) => {
      const ctx = env.ctx();
      const old = ctx.file.contexts[name];
      if (!old && !flags.server)
        throw new CliError(
          `context "${name}" is new: give its server, e.g. dashctl config set-context ${name} --server http://127.0.0.1:8080`,
        );
      if (old && flags.server === undefined && flags.project === undefined)
        throw new CliError('nothing to change: give --server URL and/or --project NAME');
      const url = flags.server !== undefined ? normaliseUrl(flags.server) : old?.url;
      const newServer = Boolean(old?.url && url !== old.url);
      ctx.update((f) => {
        const base = newServer ? { project: old!.project } : (f.contexts[name] ?? {});
        f.contexts[name] = { ...base, url, ...(flags.project !== undefined ? { project: flags.project } : {}) };
        f.currentContext ??= name;
      });
      ctx.io.out(
        `Context "${name}" ${old ? 'modified' : 'created'}${newServer ? ' (new server: log in again)' : ''}.${ctx.file.currentContext === name ? '' : ` Use it with dashctl config use-context ${name} or --context ${name}.`}\n`,
      );
    });
  config
    .command('delete-context')
    .description('forget a context and its tokens')
    .argument('<context>', 'context name')
    .action((name: string) => {
      const ctx = env.ctx();
      if (!ctx.file.contexts[name]) throw missingContext(name);
      const wasCurrent = ctx.file.currentContext === name;
      ctx.update((f) => {
        delete f.contexts[name];
        if (f.currentContext === name) delete f.currentContext;
      });
      ctx.io.out(`Deleted context "${name}".\n`);
      if (wasCurrent) ctx.io.err('warning: that was the current context; choose another with dashctl config use-context NAME\n');
    });
}
