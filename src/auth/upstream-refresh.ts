import { unauthorized } from '../errors.js';
import { specOf, type KindDescriptor } from '../kinds/descriptor.js';
import type { User } from '../kinds/generated/types.js';
import type { ResourceService } from '../resources/service.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ObjectStore } from '../storage/store.js';
import { OAuthError, type ExternalProvider } from './provider.js';
import type { Session } from './sessions.js';
import { syncUser } from './user-sync.js';

/**
 * Signs a session's user in again at its identity provider at each refresh of the session, with
 * the provider's refresh token kept (encrypted) in the session: the groups the provider reports
 * now replace those recorded on the user, so a group removed at the provider holds from the next
 * refresh on. A provider refusing the token (user removed, access revoked) ends the session.
 */
export class UpstreamRefresher {
  constructor(
    private readonly o: {
      providers: ReadonlyMap<string, ExternalProvider>;
      box: SecretBox;
      store: ObjectStore;
      service: () => ResourceService;
      userKind: KindDescriptor;
    },
  ) {}

  /** The provider refresh token as the session keeps it: encrypted, bound to the user. */
  seal(user: string, token: string): string {
    return this.o.box.encrypt(token, where(user));
  }

  /** Refreshes at the provider, records the user's groups; returns the new sealed token. */
  async refresh(s: Session): Promise<string> {
    const p = this.o.providers.get(`${s.spec.provider}/${s.spec.slug}`);
    if (!p || !s.spec.upstream) return s.spec.upstream ?? '';
    const user = await this.o.store.get({ kind: this.o.userKind.kind, project: '', name: s.spec.user });
    const bindings = (user && specOf<User>(user).oauthProviders) ?? [];
    const subject = bindings.find((b) => b.issuer === p.issuerId)?.subject;
    if (!subject) throw unauthorized(`this user is no longer bound to provider "${p.slug}"; log in again`);
    let identity;
    try {
      identity = await p.refresh(this.o.box.decrypt(s.spec.upstream, where(s.spec.user)), subject);
    } catch (e) {
      if (e instanceof OAuthError) throw unauthorized(`provider "${p.slug}" no longer accepts this sign-in (${e.code}); log in again`);
      throw e;
    }
    await syncUser({ ...identity, login: s.spec.user }, { store: this.o.store, service: this.o.service(), userKind: this.o.userKind });
    return this.seal(s.spec.user, identity.upstreamRefreshToken!);
  }
}

function where(user: string): string {
  return `Session/upstream/${user}`;
}
