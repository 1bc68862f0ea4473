import { useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useMemo } from 'react';
import { enc, getJson } from './api';

type Action = 'create' | 'read' | 'update' | 'delete';
interface Permission {
  actions: string[];
  scopes: string[];
}

/** Who is signed in: `user` undefined with auth off (everything is allowed then). */
export interface Session {
  authOn: boolean;
  user?: string | undefined;
}

const SessionContext = createContext<Session>({ authOn: false });

export function SessionProvider({ value, children }: { value: Session; children: ReactNode }) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  return useContext(SessionContext);
}

function grants(perms: readonly Permission[] | undefined, action: Action, kind: string): boolean {
  return (perms ?? []).some(
    (p) => (p.actions.includes(action) || p.actions.includes('*')) && (p.scopes.includes(kind) || p.scopes.includes('*')),
  );
}

/** A `can(action, kind, project?)` check with the server's rules (GET /api/v1/users/{me}/permissions). */
export type Can = (action: Action, kind: string, project?: string, name?: string) => boolean;

/**
 * What the signed-in user may do, so pages show only the buttons that will work: global
 * permissions (`*`) count everywhere, a project's only in it; users may read and update
 * themselves. With auth off everything is allowed. Until the answer arrives nothing is offered
 * (`failed`: the answer will not come, so nothing is).
 */
export function useCan(): { can: Can; ready: boolean; failed: boolean } {
  const { authOn, user } = useSession();
  const perms = useQuery(['permissions', user], () => getJson<Record<string, Permission[]>>(`/api/v1/users/${enc(user!)}/permissions`), {
    enabled: authOn && !!user,
    staleTime: 30_000,
  });
  return useMemo(() => {
    if (!authOn) return { can: () => true, ready: true, failed: false };
    const data = perms.data;
    const can: Can = (action, kind, project, name) => {
      if (!data) return false;
      if (kind === 'User' && name === user && (action === 'read' || action === 'update')) return true;
      return grants(data['*'], action, kind) || (project !== undefined && grants(data[project], action, kind));
    };
    return { can, ready: data !== undefined, failed: perms.isError };
  }, [authOn, user, perms.data, perms.isError]);
}
