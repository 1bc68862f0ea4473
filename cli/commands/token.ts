import { Command, Option } from 'commander';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { KINDS, objectPath, resolveKind } from '../kinds.js';
import type { Context } from '../context.js';
import { age, table, toYaml } from '../output.js';

interface OwnerFlags {
  owner?: string;
  project?: string;
}

interface TokenInfo {
  id: string;
  name: string;
  owner: { kind: string; name: string; project?: string };
  createdAt: string;
  createdBy: string;
  expiresAt: string;
  lastUsedAt?: string;
  permissions?: { actions: string[]; scopes: string[]; projects?: string[] }[];
  token?: string;
}

const ownerOption = () =>
  new Option(
    '--owner <kind/name>',
    'whose tokens: e.g. serviceaccount/ci (with -p), globalserviceaccount/backup, user/alice (default: yours)',
  );

/**
 * `dashctl token create|list|revoke`: API tokens of the signed-in user (personal access tokens)
 * or of another owner (`--owner serviceaccount/ci -p team-a`). `create` prints the secret alone
 * on stdout, once; it is never shown again.
 */
export function makeTokenCommand(env: Env): Command {
  const cmd = new Command('token').description('create, list and revoke API tokens (personal, or of a service account with --owner)');
  cmd
    .command('create')
    .description('create a token and print it (once): NAME says what it is for')
    .argument('<name>', 'what the token is for, e.g. ci-deploy')
    .option('--ttl <duration>', "lifetime, e.g. 30d or 12h (at most the server's security.authentication.max_token_ttl)")
    .option('--expires-at <time>', 'expiry as an RFC 3339 time instead of --ttl')
    .option(
      '--permission <spec...>',
      'narrow the token: ACTIONS:KINDS[@PROJECTS], comma-separated lists, e.g. read:Dashboard,Folder@team-a (repeatable)',
    )
    .addOption(ownerOption())
    .option('-p, --project <name>', 'project of a project-scoped owner (default: the saved default project)')
    .addOption(new Option('-o, --output <format>', 'what to print').choices(['token', 'json', 'yaml']).default('token'))
    .action(async (name: string, flags: OwnerFlags & { ttl?: string; expiresAt?: string; permission?: string[]; output: string }) => {
      const ctx = env.ctx();
      if (!flags.ttl === !flags.expiresAt) throw new CliError('give the token an expiry: --ttl DURATION (e.g. 30d) or --expires-at TIME');
      const body = {
        name,
        ...(flags.ttl ? { ttl: flags.ttl } : { expiresAt: flags.expiresAt }),
        ...(flags.permission ? { permissions: flags.permission.map(parsePermission) } : {}),
      };
      const { body: t } = await ctx.client().call<TokenInfo>('POST', tokensPath(ctx, flags), { body });
      if (flags.output === 'json') return ctx.io.out(`${JSON.stringify(t, null, 2)}\n`);
      if (flags.output === 'yaml') return ctx.io.out(toYaml(t));
      ctx.io.err(`token "${t.name}" (id ${t.id}) of ${owner(t)}, expires ${t.expiresAt}; copy it now, it is not shown again\n`);
      ctx.io.out(`${t.token}\n`);
    });
  cmd
    .command('list')
    .description('list tokens (never their secrets), with their expiry and last use')
    .addOption(ownerOption())
    .option('-p, --project <name>', 'project of a project-scoped owner')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json', 'yaml']).default('table'))
    .action(async (flags: OwnerFlags & { output: string }) => {
      const ctx = env.ctx();
      const { body } = await ctx.client().call<TokenInfo[]>('GET', tokensPath(ctx, flags));
      if (flags.output === 'json') return ctx.io.out(`${JSON.stringify(body, null, 2)}\n`);
      if (flags.output === 'yaml') return ctx.io.out(toYaml(body));
      if (!body.length) return ctx.io.err('no tokens\n');
      const rows = body.map((t) => [
        t.id,
        t.name,
        owner(t),
        t.expiresAt,
        t.lastUsedAt ? `${age(t.lastUsedAt)} ago` : 'never',
        t.permissions ? t.permissions.map(formatPermission).join(' ') : 'all',
        age(t.createdAt),
      ]);
      ctx.io.out(table(['ID', 'NAME', 'OWNER', 'EXPIRES', 'LAST USED', 'PERMISSIONS', 'AGE'], rows));
    });
  cmd
    .command('revoke')
    .description('revoke a token by its id (from token list): it stops working at once')
    .argument('<id>', 'token id')
    .addOption(ownerOption())
    .option('-p, --project <name>', 'project of a project-scoped owner')
    .action(async (id: string, flags: OwnerFlags) => {
      const ctx = env.ctx();
      await ctx.client().call('DELETE', `${tokensPath(ctx, flags)}/${encodeURIComponent(id)}`);
      ctx.io.out(`token ${id} revoked\n`);
    });
  return cmd;
}

/** `/api/v1/user/tokens`, or the owner's `.../{plural}/{name}/tokens`. */
function tokensPath(ctx: Context, flags: OwnerFlags): string {
  if (!flags.owner) return '/api/v1/user/tokens';
  const m = /^([^/]+)\/([^/]+)$/.exec(flags.owner);
  if (!m) throw new CliError(`--owner takes KIND/NAME, e.g. serviceaccount/ci, not ${JSON.stringify(flags.owner)}`);
  const d = resolveKind(m[1]);
  if (!d.tokenOwner)
    throw new CliError(
      `a ${d.kind} cannot own tokens; owners are ${KINDS.all()
        .filter((k) => k.tokenOwner)
        .map((k) => k.plural)
        .join(', ')}`,
    );
  const project = d.scope === 'project' ? ctx.requiredProject(flags.project, d.kind) : undefined;
  return `${objectPath(d, m[2], project)}/tokens`;
}

/** `read,update:Dashboard,Folder@team-a,team-b` -> {actions, scopes, projects}. */
export function parsePermission(spec: string): { actions: string[]; scopes: string[]; projects?: string[] } {
  const m = /^([^:@]+):([^@]+)(?:@(.+))?$/.exec(spec);
  if (!m) throw new CliError(`--permission takes ACTIONS:KINDS[@PROJECTS], e.g. read:Dashboard@team-a, not ${JSON.stringify(spec)}`);
  const list = (s: string) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const scopes = list(m[2]).map((k) => (k === '*' ? k : resolveKind(k).kind));
  return { actions: list(m[1]), scopes, ...(m[3] ? { projects: list(m[3]) } : {}) };
}

function formatPermission(p: { actions: string[]; scopes: string[]; projects?: string[] }): string {
  return `${p.actions.join(',')}:${p.scopes.join(',')}${p.projects ? `@${p.projects.join(',')}` : ''}`;
}

function owner(t: TokenInfo): string {
  return `${t.owner.kind.toLowerCase()}/${t.owner.project ? `${t.owner.project}/` : ''}${t.owner.name}`;
}
