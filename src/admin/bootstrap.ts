import { readFileSync } from 'node:fs';
import { ApiError } from '../errors.js';
import { specOf } from '../kinds/descriptor.js';
import type { GlobalRoleBinding } from '../kinds/generated/types.js';
import type { KindRegistry } from '../kinds/registry.js';
import { MANAGER } from '../resources/managers.js';
import type { ResourceService } from '../resources/service.js';
import { SYSTEM } from '../access/authorizer.js';

export interface BootstrapAdmin {
  name: string;
  password?: string;
  password_file?: string;
}

const ADMIN_ROLE = 'admin';

/**
 * The first administrator (security.bootstrap_admin or DASHPLANE_ADMIN_USER/_PASSWORD): when no
 * user of that name exists, creates it, the GlobalRole "admin" (* on *) if missing, and binds
 * the user to it through the GlobalRoleBinding "admin". An existing user is left alone.
 * Returns a line for the log, or undefined when nothing was done.
 */
/** The field manager of these writes. */
const BY_BOOTSTRAP = { manager: MANAGER.bootstrap };

export async function bootstrapAdmin(admin: BootstrapAdmin, registry: KindRegistry, service: ResourceService): Promise<string | undefined> {
  const users = registry.all().find((d) => d.isPrincipal)!;
  const roles = registry.all().find((d) => d.authz === 'role' && d.scope === 'global')!;
  const bindings = registry.all().find((d) => d.authz === 'binding' && d.scope === 'global')!;
  if (await exists(() => service.get(SYSTEM, users, '', admin.name))) return undefined;
  const password = admin.password ?? readPassword(admin.password_file);
  // Replicas starting together race here: whoever creates the user does the rest.
  const created = await service
    .create(SYSTEM, users, { kind: users.kind, metadata: { name: admin.name }, spec: { nativeProvider: { password } } }, {}, BY_BOOTSTRAP)
    .catch(existsAsUndefined);
  if (!created) return undefined;
  await service
    .create(
      SYSTEM,
      roles,
      { kind: roles.kind, metadata: { name: ADMIN_ROLE }, spec: { permissions: [{ actions: ['*'], scopes: ['*'] }] } },
      {},
      BY_BOOTSTRAP,
    )
    .catch(existsAsUndefined);
  const subject = { kind: 'User', name: admin.name };
  const made = await service
    .create(
      SYSTEM,
      bindings,
      { kind: bindings.kind, metadata: { name: ADMIN_ROLE }, spec: { role: ADMIN_ROLE, subjects: [subject] } },
      {},
      BY_BOOTSTRAP,
    )
    .catch(existsAsUndefined);
  if (!made) {
    const binding = await service.get(SYSTEM, bindings, '', ADMIN_ROLE);
    const spec = specOf<GlobalRoleBinding>(binding);
    if (!spec.subjects.some((x) => x.kind === subject.kind && x.name === subject.name)) {
      await service.update(
        SYSTEM,
        bindings,
        { ...binding, spec: { ...spec, subjects: [...spec.subjects, subject] } },
        { name: ADMIN_ROLE },
        BY_BOOTSTRAP,
      );
    }
  }
  return `created the administrator "${admin.name}" (GlobalRole ${ADMIN_ROLE}: * on *)`;
}

function existsAsUndefined(e: unknown): undefined {
  if (e instanceof ApiError && e.reason === 'AlreadyExists') return undefined;
  throw e;
}

function readPassword(file: string | undefined): string {
  if (!file)
    throw new Error('security.bootstrap_admin needs a password or password_file (or DASHPLANE_ADMIN_PASSWORD) to create the administrator');
  try {
    const password = readFileSync(file, 'utf8').trim();
    if (password) return password;
  } catch (e) {
    throw new Error(`cannot read security.bootstrap_admin.password_file ${file}: ${(e as Error).message}`);
  }
  throw new Error(`security.bootstrap_admin.password_file ${file} is empty`);
}

async function exists(get: () => Promise<unknown>): Promise<boolean> {
  return (await get().catch(notFoundAsUndefined)) !== undefined;
}

function notFoundAsUndefined(e: unknown): undefined {
  if (e instanceof ApiError && e.reason === 'NotFound') return undefined;
  throw e;
}
