import { expect } from 'chai';
import type { SecurityConfig } from '../kinds/generated/types.js';
import { openInstallationWarning } from './exposure.js';

describe('openInstallationWarning', () => {
  const warning = (security: unknown, kind: string) => openInstallationWarning(security as SecurityConfig, kind);
  const createProject = [{ actions: ['create'], scopes: ['Project'] }];
  it('warns when auth is on, sign-up open and guests may create projects (directly or through *)', () => {
    expect(warning({ enable_auth: true, authorization: { guest_permissions: createProject } }, 'Project')).to.match(/^warning: open installation/);
    expect(warning({ enable_auth: true, authorization: { guest_permissions: [{ actions: ['*'], scopes: ['*'] }] } }, 'Project')).to.be.a('string');
  });
  it('is silent with auth off, sign-up closed, native login off, or no project creation for guests', () => {
    expect(warning({ enable_auth: false, authorization: { guest_permissions: createProject } }, 'Project')).to.equal(undefined);
    expect(warning({ enable_auth: true, authentication: { disable_sign_up: true }, authorization: { guest_permissions: createProject } }, 'Project')).to.equal(undefined);
    expect(warning({ enable_auth: true, authentication: { providers: { enable_native: false } }, authorization: { guest_permissions: createProject } }, 'Project')).to.equal(undefined);
    expect(warning({ enable_auth: true, authorization: { guest_permissions: [{ actions: ['read'], scopes: ['*'] }] } }, 'Project')).to.equal(undefined);
  });
});
