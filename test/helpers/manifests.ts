import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** Every resource in a JSON (object or array) or YAML (one or more documents) file. */
export function readResources(file: string): any[] {
  const text = readFileSync(file, 'utf8');
  if (/\.json$/i.test(file)) {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  }
  return parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((v) => v !== null && v !== undefined)
    .flatMap((v) => (Array.isArray(v) ? v : [v]));
}
