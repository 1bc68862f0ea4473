import type { VariableDefinition } from '@perses-dev/core';
import type { ExternalVariableDefinition } from '@perses-dev/dashboards';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { list, type Resource } from '../api';
import { kindByPlural } from '../kinds';
import { useCan } from '../permissions';

/** A Variable or GlobalVariable object: its spec is a dashboard variable definition. */
type VariableResource = Resource<VariableDefinition>;

/** The scopes whose variables a dashboard sees, in Perses' order: the first wins over the next. */
const SCOPES = [
  {
    source: 'project',
    plural: 'variables',
    title: 'Project scope variables',
    description: 'Variables of this project. A dashboard variable of the same name overrides them.',
    projectScoped: true,
  },
  {
    source: 'global',
    plural: 'globalvariables',
    title: 'Global scope variables',
    description: 'Variables of the whole server. A dashboard or project variable of the same name overrides them.',
    projectScoped: false,
  },
] as const;

/**
 * A variable object as a dashboard variable definition: its spec, named by the object's name when
 * the spec has no name (as Perses does; the spec's own name is kept otherwise).
 */
function toDefinition(v: VariableResource): VariableDefinition {
  const def = v.spec;
  if (def?.spec?.name) return def;
  return { ...def, spec: { ...def?.spec, name: v.metadata.name } } as VariableDefinition;
}

export interface ExternalVariables {
  /** The definitions for Perses' VariableProvider (project, then global); undefined until settled. */
  definitions?: ExternalVariableDefinition[] | undefined;
  /** The scopes whose list could not be fetched, with the reason (the dashboard shows without them). */
  failures: string[];
}

/**
 * The project's and the global variables of a dashboard, as Perses' own app passes them to its
 * dashboard view: one list call per scope, none for a kind the user may not read, and a scope
 * whose call fails is left out (and reported) rather than stopping the dashboard. The Perses
 * variable store is built once, from what it gets at mount: so callers render the dashboard only
 * once `definitions` is there.
 */
export function useExternalVariables(project: string): ExternalVariables {
  const { can, ready, failed: permissionsFailed } = useCan();
  const settledPermissions = ready || permissionsFailed;
  const mayRead = SCOPES.map((s) => ready && can('read', kindByPlural(s.plural).kind, s.projectScoped ? project : undefined));
  const projectVars = useQuery(['list', 'variables', project], () => list<VariableResource>('variables', project), {
    enabled: mayRead[0],
    staleTime: 30_000,
    retry: false,
  });
  const globalVars = useQuery(['list', 'globalvariables', ''], () => list<VariableResource>('globalvariables'), {
    enabled: mayRead[1],
    staleTime: 30_000,
    retry: false,
  });
  const queries = [projectVars, globalVars];
  const settled = settledPermissions && queries.every((q, i) => !mayRead[i] || q.isSuccess || q.isError);
  const [projectData, globalData] = [projectVars.data, globalVars.data];
  const definitions = useMemo<ExternalVariableDefinition[] | undefined>(() => {
    if (!settled) return undefined;
    return SCOPES.map((s, i) => ({
      source: s.source,
      tooltip: { title: s.title, description: s.description },
      // no editLink: Perses draws it as a link inside the section's fold button, which neither
      // keyboard nor screen reader can use (axe-core: nested-interactive); the project's
      // Variables tab and Administration list them
      definitions: ([projectData, globalData][i] ?? []).map(toDefinition),
    }));
  }, [settled, project, projectData, globalData]);
  const failures = queries.flatMap((q, i) =>
    mayRead[i] && q.isError ? [`${SCOPES[i].title.toLowerCase()}: ${(q.error as Error).message}`] : [],
  );
  return { definitions, failures };
}
