import { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, toHttpError, type TokenPair } from '../api-client.js';
import { authInfo, providerPath, type AuthInfo } from '../auth-info.js';
import { contextNameFor, normaliseUrl } from '../config-file.js';
import type { Context } from '../context.js';
import type { Env } from '../env.js';
import { CliError } from '../errors.js';
import { collectionPath, KINDS, objectPath } from '../kinds.js';
import type { Io } from '../io.js';

interface LoginFlags {
  username?: string;
  password?: string;
  passwordStdin?: boolean;
  project?: string;
  token?: string;
  tokenStdin?: boolean;
  provider?: string;
  clientId?: string;
  clientSecret?: string;
}

/**
 * `dashctl login [URL]`: reads /api/config first, then logs in natively (-u and --password,
 * --password-stdin or a prompt), with a token, with client credentials or with the device-code
 * flow of a provider, and saves the server and tokens in a context, which becomes current: the
 * one named by --context, else the current one when it has no server yet or this one, else the
 * context of this server, else a new one named after its host. A change of the current context
 * is said, with how to go back.
 */
export function makeLoginCommand(env: Env): Command {
  return new Command('login')
    .description('log in to a server and remember it in a context (native, --token, --provider device code, or client credentials)')
    .argument('[url]', 'server address (default: the one of the current context)')
    .option('-u, --username <name>', 'native login name (asked when omitted on a terminal)')
    .option('--password <password>', 'native password (asked, hidden, when omitted on a terminal; prefer --password-stdin)')
    .option('--password-stdin', 'read the native password from stdin (one line)')
    .option('-p, --project <name>', 'default project of the context (must exist)')
    .option('--token <token>', 'use this access token as is')
    .option('--token-stdin', 'read an API token (dp_..., from dashctl token create) or access token from stdin')
    .option('--provider <slug>', 'OIDC/OAuth provider: device-code flow, or client credentials with --client-id')
    .option('--client-id <id>', 'client credentials (needs --provider and --client-secret)')
    .option('--client-secret <secret>', 'client credentials secret')
    .action(async (urlArg: string | undefined, flags: LoginFlags) => {
      const ctx = env.ctx();
      const url = urlArg ? normaliseUrl(urlArg) : ctx.url;
      if (flags.passwordStdin) {
        if (flags.password !== undefined) throw new CliError('give --password or --password-stdin, not both');
        flags.password = (await ctx.io.stdin()).replace(/\r?\n$/, '');
        if (!flags.password)
          throw new CliError(
            '--password-stdin read an empty password; pipe it in, e.g. printf %s "$PASSWORD" | dashctl login URL -u NAME --password-stdin',
          );
      }
      if (flags.tokenStdin) {
        if (flags.token !== undefined) throw new CliError('give --token or --token-stdin, not both');
        flags.token = (await ctx.io.stdin()).trim();
        if (!flags.token)
          throw new CliError(
            '--token-stdin read nothing; pipe the token in, e.g. printf %s "$DASHPLANE_TOKEN" | dashctl login URL --token-stdin',
          );
      }
      const api = new ApiClient({ url });
      try {
        const info = await authInfo(api);
        let tokens: TokenPair | undefined;
        if (flags.token) tokens = { access_token: flags.token };
        else if (!info.enabled) tokens = undefined;
        else if (flags.clientId || flags.clientSecret) tokens = await clientCredentials(api, info, flags);
        else if (flags.provider) tokens = await deviceCode(api, info, flags.provider, ctx.io);
        else tokens = await native(api, info, flags, ctx.io);
        if (flags.project !== undefined) await checkProject(url, tokens?.access_token, flags.project, flags.password !== undefined);
        // a token given as is is checked before it is saved: a typo must not replace a working login
        const checked = flags.token && info.enabled ? await whoami(url, flags.token) : undefined;
        const name = contextFor(ctx, url);
        const before = ctx.file.currentContext;
        ctx.saveContext(
          name,
          {
            url,
            accessToken: tokens?.access_token,
            refreshToken: tokens?.refresh_token,
            expiry: tokens?.expiry,
            ...(flags.project !== undefined ? { project: flags.project } : {}),
          },
          true,
        );
        const context = ` (context ${name})`;
        if (!tokens) ctx.io.out(`${url}: authentication is disabled on this server; saved as the current server${context}\n`);
        else {
          const who = subject(tokens.access_token) ?? checked;
          ctx.io.out(`Logged in to ${url}${who ? ` as ${who}` : ''}${context}\n`);
        }
        // kubectl's words for a change of the current context, which every later command follows
        if (before !== undefined && before !== name)
          ctx.io.out(`Switched to context "${name}" (it was "${before}"; dashctl config use-context ${before} switches back).\n`);
      } finally {
        await api.close();
      }
    });
}

/** The context a login saves to (see makeLoginCommand). */
function contextFor(ctx: Context, url: string): string {
  if (ctx.explicit) return ctx.name!;
  if (ctx.name !== undefined && (!ctx.config.url || ctx.config.url === url)) return ctx.name;
  const same = Object.entries(ctx.file.contexts).find(([, c]) => c.url === url);
  return same ? same[0] : contextNameFor(url, Object.keys(ctx.file.contexts));
}

/**
 * `-p` is the project, as everywhere in dashctl, and it must exist: one that does not is most
 * likely a password given the old way (said so unless a password was given). The server answers
 * 403 rather than 404 for a project the user may not read (so as not to tell whether it exists);
 * the list of projects (GET /api/v1/projects, the ones the user may read) then decides.
 */
async function checkProject(url: string, token: string | undefined, project: string, passwordGiven: boolean): Promise<void> {
  const api = new ApiClient({ url, accessToken: token });
  const advice = passwordGiven
    ? 'check the name (log in without -p, then dashctl get projects lists the projects you can read)'
    : '-p is --project (as in every dashctl command): give a password with --password-stdin or --password';
  try {
    const path = objectPath(KINDS.projectKind, project);
    const res = await api.request('GET', path);
    if (res.status === 404)
      throw new CliError(
        `project "${project}" does not exist on ${url}; nothing was saved. ${advice.charAt(0).toUpperCase()}${advice.slice(1)}`,
      );
    if (res.status !== 403) return;
    const list = await api.request('GET', collectionPath(KINDS.projectKind));
    if (list.status !== 200 || !Array.isArray(list.body)) throw toHttpError('GET', collectionPath(KINDS.projectKind), list);
    if (list.body.some((p: { metadata?: { name?: unknown } }) => p?.metadata?.name === project)) return;
    // a grant inside the project (a role binding, a token narrowed to some kinds there) without
    // read on the Project object itself: reading any of its kinds shows the project is there
    for (const d of KINDS.projectScoped()) {
      if ((await api.request('GET', `${collectionPath(d, project)}?limit=1`)).status === 200) return;
    }
    throw new CliError(
      `project "${project}" does not exist or you cannot read it; nothing was saved (${url}). Ask an owner of the project for access, or ${advice}`,
    );
  } finally {
    await api.close();
  }
}

/** Who a token signs in as (its user or service account); fails when the server refuses it. */
async function whoami(url: string, token: string | undefined): Promise<string | undefined> {
  const api = new ApiClient({ url, accessToken: token });
  try {
    const { body } = await api.call('GET', '/api/v1/user/whoami');
    const m = body?.metadata;
    return m ? (m.project ? `${body.kind} ${m.project}/${m.name}` : m.name) : undefined;
  } finally {
    await api.close();
  }
}

async function native(api: ApiClient, info: AuthInfo, flags: LoginFlags, io: Io): Promise<TokenPair> {
  if (!info.native)
    throw new CliError(`native login is disabled on this server; use --provider ${[...info.providers.keys()].join('|') || 'SLUG'}`);
  let login = flags.username;
  let password = flags.password;
  if ((!login || password === undefined) && !io.inTty) {
    const hint = flags.project !== undefined ? ` (-p is --project, as in every dashctl command)` : '';
    throw new CliError(
      `no terminal to ask on: give -u NAME and --password-stdin or --password PASSWORD (or --token, or --provider)${hint}`,
    );
  }
  login ||= (await io.ask('Username: ')).trim();
  if (password === undefined) password = await io.ask('Password: ', true);
  const path = '/api/auth/providers/native/login';
  const res = await api.request<TokenPair>('POST', path, { body: { login, password }, auth: false });
  if (res.status === 200) return res.body;
  const e = toHttpError('POST', path, res);
  // the server's one answer for an unknown user and a wrong password (a 400 here, a 401 from Perses): said in words, exit 1
  if (res.status === 401 || (res.status === 400 && !e.details.length))
    throw new CliError(`wrong login or password for "${login}" at ${api.url}; nothing was saved`);
  if (res.status === 429) throw new CliError(`${e.message}; nothing was saved`);
  throw e;
}

async function clientCredentials(api: ApiClient, info: AuthInfo, flags: LoginFlags): Promise<TokenPair> {
  if (!flags.provider || !flags.clientId || !flags.clientSecret)
    throw new CliError('client credentials need --provider SLUG, --client-id and --client-secret');
  const basic = Buffer.from(`${encodeURIComponent(flags.clientId)}:${encodeURIComponent(flags.clientSecret)}`).toString('base64');
  const { body } = await api.call<TokenPair>('POST', `${providerPath(info, flags.provider)}/token`, {
    raw: { text: 'grant_type=client_credentials', contentType: 'application/x-www-form-urlencoded' },
    headers: { authorization: `Basic ${basic}` },
    auth: false,
  });
  return body;
}

/** RFC 8628: show the code, poll the token endpoint at the given interval (longer on slow_down). */
async function deviceCode(api: ApiClient, info: AuthInfo, slug: string, io: Io): Promise<TokenPair> {
  const base = providerPath(info, slug);
  const { body: start } = await api.call('POST', `${base}/device/code`, { auth: false });
  const verify = start.verification_uri_complete ?? start.verification_uri;
  io.err(`To log in, open ${verify}\nand enter the code: ${start.user_code}\nWaiting for approval...\n`);
  let intervalS = Number(start.interval) > 0 ? Number(start.interval) : 5;
  const deadline = Date.now() + (Number(start.expires_in) > 0 ? Number(start.expires_in) : 600) * 1000;
  const form = `grant_type=${encodeURIComponent('urn:ietf:params:oauth:grant-type:device_code')}&device_code=${encodeURIComponent(String(start.device_code))}`;
  while (Date.now() < deadline) {
    await sleep(intervalS * 1000);
    const res = await api.request('POST', `${base}/token`, {
      raw: { text: form, contentType: 'application/x-www-form-urlencoded' },
      auth: false,
    });
    if (res.status === 200) return res.body as TokenPair;
    const error = res.body?.error;
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      intervalS += 5;
      continue;
    }
    throw toHttpError('POST', `${base}/token`, res);
  }
  throw new CliError('the device code expired before it was approved; run dashctl login again');
}

/** The `sub` claim of a JWT (who the token is for), without verifying it. */
export function subject(token: string): string | undefined {
  return claims(token)?.sub as string | undefined;
}

export function claims(token: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
