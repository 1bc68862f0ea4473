import { Command } from 'commander';
import { normaliseUrl, SETTABLE_KEYS } from '../config-file.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { objectPath, KINDS } from '../kinds.js';
import { addContextCommands } from './contexts.js';
import { claims } from './login.js';

/**
 * `dashctl config` shows the settings of the context in use (tokens summarised);
 * `config set|unset KEY [VALUE]` changes them; the context verbs are kubectl's.
 */
export function makeConfigCommand(env: Env): Command {
  const cmd = new Command('config').description(
    'show or change the saved settings (url, project) and contexts (get-contexts, use-context, set-context, ...)',
  );
  cmd.action(() => show(env));
  cmd
    .command('show')
    .description('show the saved settings')
    .action(() => show(env));
  cmd
    .command('set')
    .description(`set ${SETTABLE_KEYS.join(' or ')}`)
    .argument('<key>', SETTABLE_KEYS.join('|'))
    .argument('<value>')
    .action((key: string, value: string) => {
      const ctx = env.ctx();
      settable(key);
      ctx.save({ [key]: key === 'url' ? normaliseUrl(value) : value });
      ctx.io.out(`${key} = ${ctx.config[key as 'url']}\n`);
    });
  cmd
    .command('unset')
    .argument('<key>', SETTABLE_KEYS.join('|'))
    .action((key: string) => {
      settable(key);
      env.ctx().save({ [key]: undefined });
    });
  addContextCommands(cmd, env);
  return cmd;
}

function settable(key: string): void {
  if (!(SETTABLE_KEYS as readonly string[]).includes(key))
    throw new CliError(`unknown setting "${key}"; use ${SETTABLE_KEYS.join(' or ')}`);
}

function show(env: Env): void {
  const ctx = env.ctx();
  const c = ctx.config;
  const exp = c.accessToken ? claims(c.accessToken)?.exp : undefined;
  const token = !c.accessToken
    ? '<none>'
    : typeof exp === 'number'
      ? `present, ${exp * 1000 > Date.now() ? 'expires' : 'expired'} ${new Date(exp * 1000).toISOString()}`
      : 'present';
  const rows = [
    ['file', ctx.configFile],
    ['context', ctx.name ?? '<none> (dashctl config use-context NAME)'],
    ['url', c.url ?? '<none>'],
    ['project', c.project ?? '<none>'],
    ['access token', token],
    ['refresh token', c.refreshToken ? 'present' : '<none>'],
  ];
  for (const [k, v] of rows) ctx.io.out(`${`${k}:`.padEnd(15)}${v}\n`);
}

/** `dashctl project [NAME]`: shows or sets the default project (which must exist). */
export function makeProjectCommand(env: Env): Command {
  return new Command('project')
    .description('show the default project, or set it')
    .argument('[project]', 'project to use by default')
    .action(async (name: string | undefined) => {
      const ctx = env.ctx();
      if (!name) return ctx.io.out(ctx.config.project ? `${ctx.config.project}\n` : 'no default project (dashctl project NAME)\n');
      const res = await ctx.client().request('GET', objectPath(KINDS.projectKind, name));
      if (res.status === 404) throw new CliError(`project "${name}" does not exist (dashctl get projects lists them)`);
      if (res.status !== 200) await ctx.client().call('GET', objectPath(KINDS.projectKind, name));
      ctx.save({ project: name });
      ctx.io.out(`Default project is now ${name}\n`);
    });
}
