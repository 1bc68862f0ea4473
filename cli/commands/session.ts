import { Command, Option } from 'commander';
import { authInfo } from '../auth-info.js';
import type { Env } from '../env.js';
import { toYaml } from '../output.js';

/** `dashctl logout`: revokes the session on the server and forgets the tokens. */
export function makeLogoutCommand(env: Env): Command {
  return new Command('logout').description('end the session on the server and forget its tokens').action(async () => {
    const ctx = env.ctx();
    if (ctx.config.accessToken) {
      // An expired or revoked session is as logged out as it gets.
      await ctx
        .client()
        .request('GET', '/api/auth/logout')
        .catch(() => undefined);
    }
    ctx.save({ accessToken: undefined, refreshToken: undefined, expiry: undefined });
    ctx.io.out(`Logged out of ${ctx.config.url ?? 'the server'}${ctx.name ? ` (context ${ctx.name})` : ''}\n`);
  });
}

/** `dashctl whoami`: the signed-in user; "anonymous" when the server does not authenticate. */
export function makeWhoamiCommand(env: Env): Command {
  return new Command('whoami')
    .description('show the signed-in user')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['name', 'json', 'yaml']).default('name'))
    .action(async (flags: { output: string }) => {
      const ctx = env.ctx();
      const api = ctx.client();
      if (!(await authInfo(api)).enabled) {
        if (flags.output === 'name') return ctx.io.out('anonymous (authentication is disabled)\n');
        const doc = { kind: 'User', metadata: { name: 'anonymous' }, authentication: 'disabled' };
        return ctx.io.out(flags.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toYaml(doc));
      }
      const { body } = await api.call('GET', '/api/v1/user/whoami');
      if (flags.output === 'json') return ctx.io.out(`${JSON.stringify(body, null, 2)}\n`);
      if (flags.output === 'yaml') return ctx.io.out(toYaml(body));
      ctx.io.out(`${body?.metadata?.name}\n`);
    });
}
