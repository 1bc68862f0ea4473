import type { Line, ValueSources } from './completion.js';
import type { Context } from './context.js';
import type { Env } from './env.js';
import { collectionPath, KINDS, resolveKind } from './kinds.js';
import { listAll } from './listing.js';

/** How long completion waits for the server: a TAB must not hang the shell. */
export const COMPLETION_TIMEOUT_MS = 2_000;

/**
 * What completion asks the server for, as kubectl does: projects (`-p <TAB>`, `project <TAB>`)
 * and the names of objects of the kind on the line (`get dashboards -p demo <TAB>`; the project is
 * `-p`, else the context's default, else every project), from the context the line names
 * (`--context`), else the current one. Each answer is one list request (names starting with the
 * word typed) that gives up after COMPLETION_TIMEOUT_MS; a failure offers nothing.
 */
export function serverValues(env: Env): ValueSources {
  const contextOf = (line: Line): Context => {
    env.selectContext(line.options.context);
    return env.ctx();
  };
  const names = async (ctx: Context, path: string, prefix: string): Promise<string[]> => {
    const items = await listAll(ctx.client(COMPLETION_TIMEOUT_MS), path, { metadata_only: true, ...(prefix ? { name: prefix } : {}) });
    return [...new Set(items.map((o) => String(o.metadata?.name)))].sort();
  };
  const objects = async (line: Line): Promise<string[]> => {
    if (line.command.registeredArguments[0]?.name() !== 'kind' || !line.args.length) return [];
    const d = resolveKind(line.args[0]);
    const ctx = contextOf(line);
    const project = d.scope === 'project' ? ctx.project(line.options.project) : undefined;
    const given = new Set(line.args.slice(1));
    return (await names(ctx, collectionPath(d, project), line.current)).filter((n) => !given.has(n));
  };
  return {
    project: (line) => names(contextOf(line), collectionPath(KINDS.projectKind), line.current),
    name: objects,
    names: objects,
  };
}
