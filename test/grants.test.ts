/**
 * No grant can be squatted (docs/security.md GRANT-01, GRANT-02; docs/auth.md "Granting roles"):
 * a binding's subject or a group's member names a principal that exists, so a stranger who signs
 * up under a name an owner meant for someone else gets nothing; grants stored before that rule
 * never go to a self-service sign-up; a deleted user's grants never pass to a newcomer; and
 * native and identity-provider users never take each other's names. Against a real server and,
 * for provider users, a real OpenID provider (oidc-provider).
 */
import { expect } from 'chai';
import { bearer, login, loginAdmin, signUp, startAuthServer } from './helpers/auth.js';
import { cookieHeader } from './helpers/client.js';
import { browserLogin, startOidcProvider, type BrowserResponse, type TestOidcProvider } from './helpers/oidc-provider.js';
import type { TestServer } from './helpers/server.js';

type Auth = Record<string, string>;

/** Room for every sign-up these tests make from 127.0.0.1 (the limit has its own test). */
const ENV = { DASHPLANE_SECURITY_AUTHENTICATION_SIGN_UP_RATE_LIMIT_PER_ADDRESS: '1000' };
const user = (name: string) => ({ kind: 'User', metadata: { name }, spec: { nativeProvider: { password: `${name}-password` } } });
const rb = (name: string, role: string, subjects: { kind: string; name: string }[]) => ({
  kind: 'RoleBinding',
  metadata: { name },
  spec: { role, subjects },
});
const grb = (name: string, role: string, subjects: { kind: string; name: string }[]) => ({
  kind: 'GlobalRoleBinding',
  metadata: { name },
  spec: { role, subjects },
});
const group = (name: string, members: string[]) => ({ kind: 'Group', metadata: { name }, spec: { members } });
const User = (name: string) => ({ kind: 'User', name });

async function must(s: TestServer, auth: Auth, method: string, path: string, body?: unknown): Promise<any> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.be.oneOf([200, 204]);
  return r.body;
}

/** A 400 whose details hold exactly `paths`, each saying who does not exist and how to create it. */
async function refused(s: TestServer, auth: Auth, method: string, path: string, body: unknown, paths: string[]): Promise<void> {
  const r = await s.api(method, path, body, auth);
  expect(r.status, `${method} ${path}: ${r.text}`).to.equal(400);
  expect(
    r.body.details.map((d: { path: string }) => d.path),
    r.text,
  ).to.deep.equal(paths);
  for (const d of r.body.details)
    expect(d.message, r.text).to.match(
      /^(User|ServiceAccount|GlobalServiceAccount) "[^"]+" does not exist( in project "[^"]+")?; create (the user|the \w+) first/,
    );
}

/** What `who` may do: the projects they have a role in, and whether they hold a global permission beyond the guest's. */
async function reach(s: TestServer, who: Auth, name: string): Promise<{ projects: string[]; admin: boolean }> {
  const perms = await must(s, who, 'GET', `/api/v1/users/${name}/permissions`);
  return {
    projects: Object.keys(perms).filter((k) => k !== '*'),
    admin: (await s.api('GET', '/api/v1/users', undefined, who)).status === 200,
  };
}

describe('no grant can be squatted (GRANT-01, GRANT-02)', function () {
  this.timeout(60_000);

  describe('native users', () => {
    let s: TestServer;
    let admin: Auth;
    let olivia: Auth;
    before(async () => {
      s = await startAuthServer(ENV);
      admin = bearer(await loginAdmin(s));
      for (const name of ['olivia', 'ulla']) await signUp(s, name);
      olivia = bearer(await login(s, 'olivia'));
      await must(s, olivia, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'payroll' }, spec: {} });
    });
    after(() => s?.stop());

    it('GRANT-01: a RoleBinding naming a user, service account or global service account that does not exist is refused at the subject; a stranger signing up as newhire gets nothing', async () => {
      const base = '/api/v1/projects/payroll/rolebindings';
      const subjects = [
        User('ulla'),
        User('newhire'),
        { kind: 'Group', name: 'corp:newhire' },
        { kind: 'ServiceAccount', name: 'robot' },
        { kind: 'GlobalServiceAccount', name: 'nobody' },
        User('Ulla'),
      ];
      const paths = ['spec.subjects[1].name', 'spec.subjects[3].name', 'spec.subjects[4].name', 'spec.subjects[5].name'];
      await refused(s, olivia, 'POST', base, rb('newhire-owns', 'owner', subjects), paths);
      await refused(s, olivia, 'POST', `${base}?dryRun=true`, rb('newhire-owns', 'owner', subjects), paths);
      expect((await s.api('GET', `${base}/newhire-owns`, undefined, olivia)).status, 'nothing stored').to.equal(404);
      // an update adding one is refused too; the binding keeps its subjects
      await must(s, olivia, 'POST', base, rb('team', 'editor', [User('ulla'), { kind: 'Group', name: 'corp:payroll' }]));
      await refused(s, olivia, 'PUT', `${base}/team`, rb('team', 'editor', [User('ulla'), User('newhire')]), ['spec.subjects[1].name']);
      expect((await must(s, olivia, 'GET', `${base}/team`)).spec.subjects).to.deep.equal([
        User('ulla'),
        { kind: 'Group', name: 'corp:payroll' },
      ]);

      await signUp(s, 'newhire');
      const stranger = bearer(await login(s, 'newhire'));
      expect(await reach(s, stranger, 'newhire')).to.deep.equal({ projects: [], admin: false });
      expect((await s.api('GET', '/api/v1/projects/payroll', undefined, stranger)).status).to.equal(403);
      // the user exists now: a binding names it (whoever it is: an owner binds an account, see GRANT-02 for provider users)
      await must(s, olivia, 'POST', base, rb('newhire-views', 'viewer', [User('newhire')]));
      expect((await s.api('GET', '/api/v1/projects/payroll', undefined, stranger)).status).to.equal(200);
    });

    it('GRANT-01: a Group member or a GlobalRoleBinding subject that does not exist is refused at its path (also among many members); strangers signing up under those names get nothing', async () => {
      await refused(s, admin, 'POST', '/api/v1/groups', group('auditors', ['ulla', 'ghost-g']), ['spec.members[1]']);
      await refused(s, admin, 'POST', '/api/v1/globalrolebindings', grb('ghost-admin', 'admin', [User('ulla'), User('ghost-grb')]), [
        'spec.subjects[1].name',
      ]);
      await must(s, admin, 'POST', '/api/v1/groups', group('auditors', ['ulla']));
      await refused(s, admin, 'PUT', '/api/v1/groups/auditors', group('auditors', ['ulla', 'ghost-g']), ['spec.members[1]']);
      await must(s, admin, 'POST', '/api/v1/globalrolebindings', grb('auditors-admin', 'admin', [{ kind: 'Group', name: 'auditors' }]));
      // 40 new members at once (read as one list): the one missing is still found at its path
      const many = Array.from({ length: 40 }, (_, i) => `member-${i}`);
      for (const name of many) await must(s, admin, 'POST', '/api/v1/users', user(name));
      await refused(s, admin, 'POST', '/api/v1/groups', group('many', [...many.slice(0, 25), 'ghost-g', ...many.slice(25)]), [
        'spec.members[25]',
      ]);
      await must(s, admin, 'POST', '/api/v1/groups', group('many', many));

      for (const name of ['ghost-g', 'ghost-grb']) {
        await signUp(s, name);
        expect(await reach(s, bearer(await login(s, name)), name), name).to.deep.equal({ projects: [], admin: false });
      }
      expect((await must(s, admin, 'GET', '/api/v1/groups/auditors')).spec.members).to.deep.equal(['ulla']);
      expect((await s.api('GET', '/api/v1/globalrolebindings/ghost-admin', undefined, admin)).status).to.equal(404);
    });

    it('GRANT-01: grants stored before the rule (a binding and a group naming nobody) never go to a self-service sign-up, also a signed-in one or a dry run; a user an administrator creates gets them', async () => {
      const at = new Date().toISOString();
      const meta = (name: string, project?: string) => ({
        name,
        ...(project ? { project } : {}),
        createdAt: at,
        updatedAt: at,
        version: 0,
      });
      const old = { writer: { by: 'someone', manager: 'unknown' } };
      await s.server.store.create(
        { kind: 'RoleBinding', metadata: meta('heir-owns', 'payroll'), spec: { role: 'owner', subjects: [User('heir')] } },
        old,
      );
      await s.server.store.create({ kind: 'Group', metadata: meta('old-team'), spec: { members: ['heir2'] } }, old);
      await s.server.store.create(
        {
          kind: 'GlobalRoleBinding',
          metadata: meta('old-team-admin'),
          spec: { role: 'admin', subjects: [{ kind: 'Group', name: 'old-team' }] },
        },
        old,
      );
      for (const name of ['heir', 'heir2']) {
        // anonymous, a dry run, and a signed-in user who may not create users (olivia owns a project, nothing more)
        for (const [path, auth] of [
          ['/api/v1/users', {}],
          ['/api/v1/users?dryRun=true', {}],
          ['/api/v1/users', olivia],
        ] as const) {
          const r = await s.api('POST', path, user(name), auth);
          expect(r.status, `${name} ${path}: ${r.text}`).to.equal(409);
          expect(r.body.message)
            .to.include(`the name "${name}" is reserved`)
            .and.include('only an administrator or an identity provider may create it');
          expect(r.body.details).to.deep.equal([
            { path: 'metadata.name', message: 'is reserved for a user an administrator or an identity provider creates' },
          ]);
        }
        expect((await s.api('GET', `/api/v1/users/${name}`, undefined, admin)).status, 'no user made').to.equal(404);
      }
      // the binding can still be edited (its subject was there before); it gains no new unknown one
      await must(
        s,
        olivia,
        'PUT',
        '/api/v1/projects/payroll/rolebindings/heir-owns',
        rb('heir-owns', 'owner', [User('heir'), User('ulla')]),
      );
      // an administrator creates the user the grant was meant for: it gets it
      await must(s, admin, 'POST', '/api/v1/users', user('heir'));
      expect((await reach(s, bearer(await login(s, 'heir')), 'heir')).projects).to.deep.equal(['payroll']);
    });

    it("GRANT-01: a deleted user's grants never pass to a newcomer of the same name, also with bindings naming it written while it is deleted", async () => {
      await signUp(s, 'leaver');
      await must(s, olivia, 'POST', '/api/v1/projects/payroll/rolebindings', rb('leaver-0', 'owner', [User('leaver')]));
      await must(s, admin, 'POST', '/api/v1/groups', group('leavers', ['leaver', 'ulla']));
      const racing = Array.from({ length: 12 }, (_, i) =>
        s.api('POST', '/api/v1/projects/payroll/rolebindings', rb(`leaver-${i + 1}`, 'owner', [User('leaver')]), olivia),
      );
      const [deleted, ...bound] = await Promise.all([s.api('DELETE', '/api/v1/users/leaver', undefined, admin), ...racing]);
      expect(deleted.status, deleted.text).to.equal(204);
      for (const r of bound) expect(r.status, r.text).to.be.oneOf([200, 400]);
      const left = (await must(s, olivia, 'GET', '/api/v1/projects/payroll/rolebindings')) as { spec: { subjects: { name: string }[] } }[];
      expect(
        left.filter((b) => b.spec.subjects.some((x) => x.name === 'leaver')),
        'bindings naming the deleted user',
      ).to.deep.equal([]);
      expect((await must(s, admin, 'GET', '/api/v1/groups/leavers')).spec.members).to.deep.equal(['ulla']);
      await signUp(s, 'leaver', 'newcomer-password');
      expect(await reach(s, bearer(await login(s, 'leaver', 'newcomer-password')), 'leaver')).to.deep.equal({ projects: [], admin: false });
    });
  });

  describe('with an identity provider (a real OpenID provider)', () => {
    let corp: TestOidcProvider;
    let other: TestOidcProvider;
    let s: TestServer;
    let admin: Auth;
    let owner: Auth;
    const account = (sub: string, login: string) => ({
      sub,
      preferred_username: login,
      email: `${login}@corp.example`,
      email_verified: true,
    });
    const entry = (p: TestOidcProvider, slug: string) => ({
      slug_id: slug,
      name: slug,
      client_id: p.clientId,
      client_secret: p.clientSecret,
      issuer: p.issuer,
    });
    /** A browser sign-in through `slug` as the provider's account `sub`: the callback's answer. */
    const signIn = async (slug: string, sub: string) =>
      (await browserLogin(`${s.url}/api/auth/providers/oidc/${slug}/login`, sub)).callback;
    const cookies = (r: BrowserResponse): Auth => {
      expect(r.status, `${r.url}: ${r.status} ${r.text.slice(0, 300)}`).to.equal(302);
      return { cookie: cookieHeader(r.setCookie.filter((l) => /^jwt(Payload|Signature)=./.test(l))) };
    };

    before(async () => {
      [corp, other] = await Promise.all([
        startOidcProvider({ accounts: [account('u-carol', 'carol'), account('u-dave', 'dave'), account('u-erin', 'erin')] }),
        startOidcProvider({ accounts: [account('x-carol', 'carol')] }),
      ]);
      s = await startAuthServer({
        ...ENV,
        DASHPLANE_SECURITY_AUTHENTICATION_PROVIDERS_OIDC: JSON.stringify([entry(corp, 'corp'), entry(other, 'other')]),
      });
      corp.allowRedirectUri(`${s.url}/api/auth/providers/oidc/corp/callback`);
      other.allowRedirectUri(`${s.url}/api/auth/providers/oidc/other/callback`);
      admin = bearer(await loginAdmin(s));
      await signUp(s, 'olivia');
      owner = bearer(await login(s, 'olivia'));
      await must(s, owner, 'POST', '/api/v1/projects', { kind: 'Project', metadata: { name: 'research' }, spec: {} });
    });
    after(async () => {
      await s?.stop();
      await Promise.all([corp?.stop(), other?.stop()]);
    });

    it('GRANT-01: onboarding before the first sign-in: an administrator creates the provider user (or a native one) and the owner binds it; a native sign-up cannot take that name; the provider user gets the grant at its first sign-in', async () => {
      await refused(s, owner, 'POST', '/api/v1/projects/research/rolebindings', rb('carol-edits', 'editor', [User('carol')]), [
        'spec.subjects[0].name',
      ]);
      const carol = { kind: 'User', metadata: { name: 'carol' }, spec: { firstName: 'Carol', oauthProviders: [{ issuer: corp.issuer }] } };
      await must(s, admin, 'POST', '/api/v1/users', carol);
      await must(s, owner, 'POST', '/api/v1/projects/research/rolebindings', rb('carol-edits', 'editor', [User('carol')]));
      // a stranger's native sign-up (409: the name is taken), a native login (no password), and carol of another provider: nothing
      expect((await s.api('POST', '/api/v1/users', user('carol'))).status).to.equal(409);
      expect((await s.api('POST', '/api/auth/providers/native/login', { login: 'carol', password: 'carol-password' })).status).to.equal(
        400,
      );
      const foreign = await signIn('other', 'x-carol');
      expect(foreign.status, foreign.text).to.equal(403);
      expect(foreign.setCookie.filter((l) => /^jwt\w+=./.test(l))).to.deep.equal([]);
      expect((await must(s, admin, 'GET', '/api/v1/users/carol')).spec, 'still awaiting its provider').to.deep.equal(carol.spec);

      const real = cookies(await signIn('corp', 'u-carol'));
      expect((await must(s, real, 'GET', '/api/v1/user/whoami')).metadata.name).to.equal('carol');
      expect((await s.api('GET', '/api/v1/projects/research', undefined, real)).status, 'the grant made before her first sign-in').to.equal(
        200,
      );
      expect((await must(s, admin, 'GET', '/api/v1/users/carol')).spec.oauthProviders).to.deep.equal([
        { issuer: corp.issuer, subject: 'u-carol', email: 'carol@corp.example' },
      ]);
      // bound now: the other provider's carol still cannot take it
      expect((await signIn('other', 'x-carol')).status).to.equal(403);

      // a native user an administrator creates, bound before its first login
      await must(s, admin, 'POST', '/api/v1/users', user('newbie'));
      await must(s, owner, 'POST', '/api/v1/projects/research/rolebindings', rb('newbie-views', 'viewer', [User('newbie')]));
      expect((await s.api('GET', '/api/v1/projects/research', undefined, bearer(await login(s, 'newbie')))).status).to.equal(200);
    });

    it("GRANT-02: native and provider users never take each other's names or rights; a user for a provider names a configured issuer alone and has no password", async () => {
      // a provider user first: a native sign-up under its name is refused, and no password opens it
      cookies(await signIn('corp', 'u-dave'));
      await must(s, owner, 'POST', '/api/v1/projects/research/rolebindings', rb('dave-views', 'viewer', [User('dave')]));
      expect((await s.api('POST', '/api/v1/users', user('dave'))).status).to.equal(409);
      expect((await s.api('POST', '/api/auth/providers/native/login', { login: 'dave', password: 'dave-password' })).status).to.equal(400);
      // a native user first: the provider's erin is refused and gets none of erin's rights
      await signUp(s, 'erin');
      await must(s, owner, 'POST', '/api/v1/projects/research/rolebindings', rb('erin-owns', 'owner', [User('erin')]));
      const before = await must(s, admin, 'GET', '/api/v1/users/erin');
      const taken = await signIn('corp', 'u-erin');
      expect(taken.status, taken.text).to.equal(403);
      expect(taken.setCookie.filter((l) => /^jwt\w+=./.test(l))).to.deep.equal([]);
      expect(await must(s, admin, 'GET', '/api/v1/users/erin')).to.deep.equal(before);

      // creating a user for a provider: only an administrator, only {"issuer"} of a configured provider, no password
      const forProvider = (name: string, spec: Record<string, unknown>) => ({ kind: 'User', metadata: { name }, spec });
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [
          { oauthProviders: [{ issuer: 'https://sso.elsewhere.example' }] },
          'spec.oauthProviders[0].issuer',
          new RegExp(`^must be one of "${corp.issuer}", "${other.issuer}"$`),
        ],
        [
          { oauthProviders: [{ issuer: corp.issuer, subject: 'u-erin' }] },
          'spec.oauthProviders[0].subject',
          /recorded by dashplane at the user's first sign-in/,
        ],
        [{ oauthProviders: [{ issuer: corp.issuer, groups: ['admins'] }] }, 'spec.oauthProviders[0].groups', /recorded by dashplane/],
        [
          { oauthProviders: [{ issuer: corp.issuer }], nativeProvider: { password: 'pw-pw-pw' } },
          'spec.nativeProvider.password',
          /has no password/,
        ],
      ];
      for (const [spec, path, message] of cases) {
        const r = await s.api('POST', '/api/v1/users', forProvider('frank', spec), admin);
        expect(r.status, r.text).to.equal(400);
        expect(r.body.details.find((d: { path: string }) => d.path === path)?.message, r.text).to.match(message);
      }
      const signedIn = bearer(await login(s, 'erin'));
      for (const auth of [{}, signedIn]) {
        const r = await s.api('POST', '/api/v1/users', forProvider('frank', { oauthProviders: [{ issuer: corp.issuer }] }), auth);
        expect(r.status, `a sign-up cannot create one: ${r.text}`).to.equal(400);
        expect(r.body.details[0].path).to.equal('spec.oauthProviders');
      }
      expect((await s.api('GET', '/api/v1/users/frank', undefined, admin)).status).to.equal(404);
    });
  });
});
