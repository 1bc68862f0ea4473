/**
 * Checks a stopped LevelStore's search index against its objects (level-search.ts): every object
 * of an indexed kind has the search record its text gives, every record belongs to an object and
 * has each of its entries, and no entry is left without its record.
 */
import { Level } from 'level';
import { recordOf } from '../../src/storage/level-search.js';
import type { Envelope } from '../../src/storage/store.js';

const SEP = '\u0000';
const TOP = '\u{10ffff}';

/** What disagrees in the index of the LevelDB directory `path` (empty: nothing). */
export async function searchIndexProblems(path: string, kinds: readonly string[]): Promise<string[]> {
  const db = new Level<string, string>(path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  try {
    const problems: string[] = [];
    const records = new Map(await db.iterator({ gte: `y${SEP}`, lt: `y${SEP}${TOP}` }).all());
    const entries = new Set(await db.keys({ gte: `x${SEP}`, lt: `x${SEP}${TOP}` }).all());
    const objects = new Set<string>();
    for (const kind of kinds) {
      for (const [key, value] of await db.iterator({ gte: `o${SEP}${kind}${SEP}`, lt: `o${SEP}${kind}${SEP}${TOP}` }).all()) {
        const doc = key.slice(2);
        objects.add(doc);
        if (records.get(`y${SEP}${doc}`) !== recordOf(JSON.parse(value) as Envelope))
          problems.push(`${doc}: its search record is not what its text gives`);
      }
    }
    const listed = new Set<string>();
    for (const [key, record] of records) {
      const doc = key.slice(2);
      if (!objects.has(doc)) problems.push(`${doc}: a search record without its object`);
      for (const e of record.split(SEP)) {
        const entry = `x${SEP}${e[0]}${SEP}${e.slice(1)}${SEP}${doc}`;
        listed.add(entry);
        if (!entries.has(entry)) problems.push(`${doc}: entry ${JSON.stringify(e)} missing`);
      }
    }
    for (const entry of entries) if (!listed.has(entry)) problems.push(`entry ${JSON.stringify(entry)} without its record`);
    return problems;
  } finally {
    await db.close();
  }
}
