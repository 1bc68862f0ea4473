import type { ListQuery } from './store.js';

/** An object as its JSON text, as written (a json column keeps it verbatim; `storedText` reads the metadata). */
export const TEXT_COLUMNS = 'doc::text AS text';

/** The doc column of a list: only kind and metadata when that is all the caller needs. */
export function docColumns(q: ListQuery): string {
  return q.metadataOnly ? `json_build_object('kind', doc->'kind', 'metadata', doc->'metadata', 'spec', '{}'::json) AS doc` : 'doc';
}

/**
 * The SQL text and values that select `columns` of a list query's objects, in list order
 * (project, then name, byte-wise: the key columns are COLLATE "C").
 */
export function listSql(columns: string, q: ListQuery): [string, unknown[]] {
  const values: unknown[] = [q.kind];
  const where = ['kind = $1'];
  if (q.project !== undefined) {
    values.push(q.project);
    where.push(`project = $${values.length}`);
  }
  if (q.namePrefix) {
    values.push(q.namePrefix);
    where.push(`starts_with(name, $${values.length})`);
  }
  if (q.after) {
    values.push(q.after.project, q.after.name);
    where.push(`(project, name) > ($${values.length - 1}::text COLLATE "C", $${values.length}::text COLLATE "C")`);
  }
  let text = `SELECT ${columns} FROM dashplane_objects WHERE ${where.join(' AND ')} ORDER BY project, name`;
  if (q.limit !== undefined) {
    values.push(q.limit);
    text += ` LIMIT $${values.length}`;
  }
  return [text, values];
}
