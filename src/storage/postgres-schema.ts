import type { PoolClient } from 'pg';

/**
 * The PostgreSQL schema of dashplane, as numbered migrations applied in order at open. Applied
 * versions are recorded in `dashplane_schema`; each migration runs once, in one transaction, under
 * an advisory lock so several replicas starting together migrate exactly once.
 *
 * Every text key column is `COLLATE "C"`: lists sort byte-wise (the contract), whatever the
 * database's default collation. Documents are `json`, which keeps the text as written (jsonb
 * would reorder the keys): reads give back what was written, as LevelStore does.
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'objects, event log, history, store-wide revision',
    sql: `
      CREATE TABLE dashplane_objects (
        kind text COLLATE "C" NOT NULL,
        project text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        doc jsonb NOT NULL,
        version integer NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (kind, project, name)
      );
      CREATE INDEX dashplane_objects_project ON dashplane_objects (project, kind);

      -- One row per event; revisions are gapless (numbered under the meta row lock, in the same
      -- transaction as the write), so a reader can tell a trimmed log from a complete one.
      CREATE TABLE dashplane_events (
        revision bigint PRIMARY KEY,
        type text NOT NULL,
        object jsonb NOT NULL,
        committed_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE dashplane_history (
        kind text COLLATE "C" NOT NULL,
        project text COLLATE "C" NOT NULL,
        name text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        updated_by text NOT NULL,
        doc jsonb NOT NULL,
        PRIMARY KEY (kind, project, name, version)
      );

      -- The store-wide revision: one row, updated by every write (which also serialises the
      -- numbering, so revision order is commit order).
      CREATE TABLE dashplane_meta (
        id integer PRIMARY KEY CHECK (id = 1),
        revision bigint NOT NULL
      );
      INSERT INTO dashplane_meta (id, revision) VALUES (1, 0);
    `,
  },
  {
    version: 2,
    description: 'creation revision of every object',
    sql: `
      -- The revision of each object's ADDED event: tells a project's current incarnation from an
      -- earlier project of the same name. Objects whose ADDED event is no longer in the log keep 0:
      -- they were created before every retained event.
      ALTER TABLE dashplane_objects ADD COLUMN created_revision bigint NOT NULL DEFAULT 0;
      UPDATE dashplane_objects o SET created_revision = e.revision
        FROM (SELECT object->>'kind' AS kind, coalesce(object->'metadata'->>'project', '') AS project,
                     object->'metadata'->>'name' AS name, max(revision) AS revision
                FROM dashplane_events WHERE type = 'ADDED' GROUP BY 1, 2, 3) e
        WHERE o.kind = e.kind AND o.project = e.project AND o.name = e.name;
    `,
  },
  {
    version: 3,
    description: "field managers: each object's managers record, each history entry's manager",
    sql: `
      -- The latest write of each field manager (dashctl, web-ui, api...), newest first: kept beside
      -- the document, which reads serve as stored (a Perses client must not see it).
      ALTER TABLE dashplane_objects ADD COLUMN managers jsonb NOT NULL DEFAULT '[]'::jsonb;
      -- '' for entries written before managers were recorded.
      ALTER TABLE dashplane_history ADD COLUMN manager text NOT NULL DEFAULT '';
    `,
  },
  {
    version: 4,
    description: 'audit log',
    sql: `
      -- One row per audit entry (the whole entry in entry; the filtered fields as columns).
      CREATE TABLE dashplane_audit (
        id bigint PRIMARY KEY,
        time timestamptz NOT NULL,
        action text NOT NULL,
        "user" text COLLATE "C" NOT NULL,
        kind text COLLATE "C",
        project text COLLATE "C",
        entry jsonb NOT NULL
      );
      CREATE INDEX dashplane_audit_time ON dashplane_audit (time);
      CREATE INDEX dashplane_audit_user ON dashplane_audit ("user", id);
      CREATE INDEX dashplane_audit_project ON dashplane_audit (project, id);
      CREATE INDEX dashplane_audit_kind ON dashplane_audit (kind, id);
      -- Ids are taken from this row: its lock, held to commit, makes id order commit order.
      CREATE TABLE dashplane_audit_seq (
        id integer PRIMARY KEY CHECK (id = 1),
        last bigint NOT NULL
      );
      INSERT INTO dashplane_audit_seq (id, last) VALUES (1, 0);
    `,
  },
  {
    version: 5,
    description: 'documents as written: json (the text verbatim) instead of jsonb (keys reordered)',
    sql: `
      -- jsonb reorders keys (shorter first, then byte-wise): a document read back differed from
      -- what was written, and from the same document on LevelDB. json keeps the text as written and
      -- still answers the -> and ->> operators. What jsonb already reordered cannot be recovered;
      -- the envelope's own members are put back in the order dashplane writes them (kind,
      -- metadata, spec), which lets reads find the metadata without parsing the spec.
      CREATE FUNCTION pg_temp.dashplane_envelope(d jsonb) RETURNS json LANGUAGE sql IMMUTABLE AS $$
        SELECT (CASE WHEN d ? 'kind' AND d ? 'metadata' AND d ? 'spec' AND d - 'kind' - 'metadata' - 'spec' = '{}'::jsonb
          THEN '{"kind":' || (d->'kind')::text || ',"metadata":' || (d->'metadata')::text || ',"spec":' || (d->'spec')::text || '}'
          ELSE d::text END)::json
      $$;
      ALTER TABLE dashplane_objects ALTER COLUMN doc TYPE json USING pg_temp.dashplane_envelope(doc::jsonb),
        ALTER COLUMN managers DROP DEFAULT,
        ALTER COLUMN managers TYPE json USING managers::text::json,
        ALTER COLUMN managers SET DEFAULT '[]'::json;
      ALTER TABLE dashplane_history ALTER COLUMN doc TYPE json USING pg_temp.dashplane_envelope(doc::jsonb);
      ALTER TABLE dashplane_events ALTER COLUMN object TYPE json USING pg_temp.dashplane_envelope(object::jsonb);
      ALTER TABLE dashplane_audit ALTER COLUMN entry TYPE json USING entry::text::json;
      DROP FUNCTION pg_temp.dashplane_envelope(jsonb);
    `,
  },
  {
    version: 6,
    description: 'objects found by their key through the primary key only',
    sql: `
      -- With statistics that lag behind a table's growth (a new or fast-growing database), the
      -- planner took this index for key lookups too (kind and project match, then every object of
      -- the project filtered by name): a GET or a write's update scanned the whole project. The
      -- primary key (kind, project, name) serves every query the index served (the objects of some
      -- kinds in a project).
      DROP INDEX IF EXISTS dashplane_objects_project;
    `,
  },
  {
    version: 7,
    description: 'documents compressed with lz4 where the server has it',
    sql: `
      -- Every write stores its document three times (object, history entry, event), each over
      -- PostgreSQL's 2 KB threshold and compressed: pglz cost ~0.4 ms of the database's CPU per
      -- 10 KB create, lz4 a fraction of it. New values only; a server built without lz4 keeps pglz.
      DO $$
      BEGIN
        EXECUTE 'ALTER TABLE dashplane_objects ALTER COLUMN doc SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE dashplane_history ALTER COLUMN doc SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE dashplane_events ALTER COLUMN object SET COMPRESSION lz4';
      EXCEPTION WHEN feature_not_supported OR syntax_error THEN
        RAISE NOTICE 'lz4 is not available: documents stay compressed with pglz';
      END $$;
    `,
  },
  {
    version: 8,
    description: 'creates of new objects made together in one statement',
    sql: `
      -- A group of new objects' creates (each with its parent, its history started afresh), in one
      -- statement outside any explicit transaction: one round trip instead of BEGIN, one statement
      -- per create, the shared statement and COMMIT, and the store-wide revision row is held only
      -- for the function's last steps. A create whose parent is missing or whose name is taken
      -- is refused alone (its status says which; nothing of it is written); any other error fails
      -- the whole statement (nothing is written) and dashplane then makes the group the usual way.
      -- Arrays hold one element per create ($documents and $managers: one JSON array each, in the
      -- same order); audit entries name the create they belong to (audit_write, from 1) and are
      -- written, numbered in order, only for the creates that passed. The events, the creation
      -- revisions, the log trimming and the notifications are those of a write's shared part.
      CREATE OR REPLACE FUNCTION dashplane_create_batch(
        kinds text[], projects text[], names text[], documents json, versions integer[], updated text[], managers json,
        parent_kinds text[], parent_projects text[], parent_names text[], writers text[], writer_managers text[],
        log_size bigint, audit_write integer[], audit_time text[], audit_action text[], audit_user text[],
        audit_kind text[], audit_project text[], audit_entry text[], events_channel text, audit_channel text,
        OUT statuses text[], OUT base bigint, OUT audit_base bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        docs json[];
        mans json[];
        done integer[] := '{}';
        n integer;
        audited integer;
      BEGIN
        SELECT array_agg(value ORDER BY i) INTO docs FROM json_array_elements(documents) WITH ORDINALITY AS t(value, i);
        SELECT array_agg(value ORDER BY i) INTO mans FROM json_array_elements(managers) WITH ORDINALITY AS t(value, i);
        statuses := array_fill(''::text, ARRAY[cardinality(kinds)]);
        FOR i IN 1 .. cardinality(kinds) LOOP
          PERFORM 1 FROM dashplane_objects
            WHERE kind = parent_kinds[i] COLLATE "C" AND project = parent_projects[i] COLLATE "C" AND name = parent_names[i] COLLATE "C" FOR SHARE;
          IF NOT FOUND THEN
            statuses[i] := 'missing';
            CONTINUE;
          END IF;
          INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers)
            VALUES (kinds[i], projects[i], names[i], docs[i], versions[i], updated[i], mans[i])
            ON CONFLICT (kind, project, name) DO NOTHING;
          IF NOT FOUND THEN
            statuses[i] := 'taken';
            CONTINUE;
          END IF;
          -- the history of an earlier object of this name goes; the version written is replaced
          DELETE FROM dashplane_history
            WHERE kind = kinds[i] COLLATE "C" AND project = projects[i] COLLATE "C" AND name = names[i] COLLATE "C" AND version <> versions[i];
          INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc)
            VALUES (kinds[i], projects[i], names[i], versions[i], writers[i], writer_managers[i], docs[i])
            ON CONFLICT (kind, project, name, version) DO UPDATE SET updated_by = EXCLUDED.updated_by, manager = EXCLUDED.manager, doc = EXCLUDED.doc;
          statuses[i] := 'ok';
          done := done || i;
        END LOOP;
        n := cardinality(done);
        IF n = 0 THEN
          RETURN;
        END IF;
        UPDATE dashplane_meta SET revision = revision + n WHERE id = 1 RETURNING revision - n INTO base;
        INSERT INTO dashplane_events (revision, type, object)
          SELECT base + j, 'ADDED', docs[done[j]] FROM generate_subscripts(done, 1) AS j;
        -- one key at a time: a join with the list would be planned as a hash join over every object
        FOR j IN 1 .. n LOOP
          UPDATE dashplane_objects SET created_revision = base + j
            WHERE kind = kinds[done[j]] COLLATE "C" AND project = projects[done[j]] COLLATE "C" AND name = names[done[j]] COLLATE "C";
        END LOOP;
        DELETE FROM dashplane_events WHERE revision <= base + n - log_size;
        audited := (SELECT count(*) FROM unnest(audit_write) AS w WHERE w = ANY (done));
        IF audited > 0 THEN
          UPDATE dashplane_audit_seq SET last = last + audited WHERE id = 1 RETURNING last - audited INTO audit_base;
          INSERT INTO dashplane_audit (id, time, action, "user", kind, project, entry)
            SELECT audit_base + k, d.time::timestamptz, d.action, d.usr, d.kind, d.project, ('{"id":' || (audit_base + k) || ',' || substr(d.entry, 2))::json
              FROM (SELECT a.*, row_number() OVER (ORDER BY a.i) AS k
                      FROM unnest(audit_write, audit_time, audit_action, audit_user, audit_kind, audit_project, audit_entry)
                           WITH ORDINALITY AS a(w, time, action, usr, kind, project, entry, i)
                     WHERE a.w = ANY (done)) AS d;
          PERFORM pg_notify(audit_channel, (audit_base + audited)::text);
        END IF;
        PERFORM pg_notify(events_channel, (base + n)::text);
      END
      $fn$;
    `,
  },
  {
    version: 9,
    description: 'search index; creates written once; the event log trimmed by revision range',
    sql: `
      -- The search index (postgres-search.ts): each object's terms as lexemes, its class letter
      -- first (a name or title, b tag, p project, s spec; e a whole name or title), written with
      -- the object. NULL: not indexed yet (a row written before, or by a store without the index),
      -- which a replica indexes in the background; '' for kinds the search does not look into.
      ALTER TABLE dashplane_objects ADD COLUMN search tsvector;
      CREATE INDEX dashplane_objects_search ON dashplane_objects USING gin (search);
      CREATE INDEX dashplane_objects_unindexed ON dashplane_objects (kind) WHERE search IS NULL;

      -- The log trimmed by revision range: the events a write's revisions push out of the last
      -- log_size, from the oldest a write with the same log_size left. A DELETE of every revision
      -- below a bound walked the index from its start, over every dead row earlier trims left
      -- until vacuum came (a 100,000 load in four chunks: 3,645 -> 1,255 creates/s). Once every
      -- 1,024 revisions the whole log below the bound goes (replicas with other log sizes, a
      -- log size lowered since).
      CREATE FUNCTION dashplane_trim_events(base bigint, n bigint, log_size bigint) RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        IF (base + n) / 1024 > base / 1024 THEN
          DELETE FROM dashplane_events WHERE revision <= base + n - log_size;
        ELSE
          DELETE FROM dashplane_events WHERE revision > base - log_size AND revision <= base + n - log_size;
        END IF;
      END
      $fn$;

      -- Migration 8's function with the search column, the parents read before the revision row
      -- and the rows inserted after it (their creation revision written with them: it updated
      -- every new row, a dead row per create until vacuum), the log trimmed by range, creates
      -- without a parent (a project: parent_kinds[i] NULL) and of kinds without history (recorded[i] false).
      DROP FUNCTION dashplane_create_batch(text[], text[], text[], json, integer[], text[], json, text[], text[], text[], text[], text[], bigint, integer[], text[], text[], text[], text[], text[], text[], text, text);
      CREATE FUNCTION dashplane_create_batch(
        kinds text[], projects text[], names text[], documents json, versions integer[], updated text[], managers json,
        parent_kinds text[], parent_projects text[], parent_names text[], writers text[], writer_managers text[],
        log_size bigint, audit_write integer[], audit_time text[], audit_action text[], audit_user text[],
        audit_kind text[], audit_project text[], audit_entry text[], events_channel text, audit_channel text, searches text[], recorded boolean[],
        OUT statuses text[], OUT base bigint, OUT audit_base bigint)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        docs json[];
        mans json[];
        done integer[] := '{}';
        n integer;
        audited integer;
      BEGIN
        SELECT array_agg(value ORDER BY i) INTO docs FROM json_array_elements(documents) WITH ORDINALITY AS t(value, i);
        SELECT array_agg(value ORDER BY i) INTO mans FROM json_array_elements(managers) WITH ORDINALITY AS t(value, i);
        statuses := array_fill(''::text, ARRAY[cardinality(kinds)]);
        -- the parents first, then the revision row, then the rows: the order every write takes its locks in
        FOR i IN 1 .. cardinality(kinds) LOOP
          CONTINUE WHEN parent_kinds[i] IS NULL;
          PERFORM 1 FROM dashplane_objects
            WHERE kind = parent_kinds[i] COLLATE "C" AND project = parent_projects[i] COLLATE "C" AND name = parent_names[i] COLLATE "C" FOR SHARE;
          IF NOT FOUND THEN
            statuses[i] := 'missing';
          END IF;
        END LOOP;
        SELECT revision INTO base FROM dashplane_meta WHERE id = 1 FOR UPDATE;
        n := 0;
        FOR i IN 1 .. cardinality(kinds) LOOP
          CONTINUE WHEN statuses[i] = 'missing';
          -- the row as it stays: its creation revision known now (no update after, no dead row per create)
          INSERT INTO dashplane_objects (kind, project, name, doc, version, updated_at, managers, created_revision, search)
            VALUES (kinds[i], projects[i], names[i], docs[i], versions[i], updated[i], mans[i], base + n + 1, searches[i]::tsvector)
            ON CONFLICT (kind, project, name) DO NOTHING;
          IF NOT FOUND THEN
            statuses[i] := 'taken';
            CONTINUE;
          END IF;
          n := n + 1;
          -- the history of an earlier object of this name goes; the version written is replaced (a
          -- kind without history: recorded[i] false, nothing is kept)
          DELETE FROM dashplane_history
            WHERE kind = kinds[i] COLLATE "C" AND project = projects[i] COLLATE "C" AND name = names[i] COLLATE "C" AND (version <> versions[i] OR NOT recorded[i]);
          IF recorded[i] THEN
            INSERT INTO dashplane_history (kind, project, name, version, updated_by, manager, doc)
              VALUES (kinds[i], projects[i], names[i], versions[i], writers[i], writer_managers[i], docs[i])
              ON CONFLICT (kind, project, name, version) DO UPDATE SET updated_by = EXCLUDED.updated_by, manager = EXCLUDED.manager, doc = EXCLUDED.doc;
          END IF;
          statuses[i] := 'ok';
          done := done || i;
        END LOOP;
        IF n = 0 THEN
          base := NULL;
          RETURN;
        END IF;
        UPDATE dashplane_meta SET revision = base + n WHERE id = 1;
        INSERT INTO dashplane_events (revision, type, object)
          SELECT base + j, 'ADDED', docs[done[j]] FROM generate_subscripts(done, 1) AS j;
        PERFORM dashplane_trim_events(base, n, log_size);
        audited := (SELECT count(*) FROM unnest(audit_write) AS w WHERE w = ANY (done));
        IF audited > 0 THEN
          UPDATE dashplane_audit_seq SET last = last + audited WHERE id = 1 RETURNING last - audited INTO audit_base;
          INSERT INTO dashplane_audit (id, time, action, "user", kind, project, entry)
            SELECT audit_base + k, d.time::timestamptz, d.action, d.usr, d.kind, d.project, ('{"id":' || (audit_base + k) || ',' || substr(d.entry, 2))::json
              FROM (SELECT a.*, row_number() OVER (ORDER BY a.i) AS k
                      FROM unnest(audit_write, audit_time, audit_action, audit_user, audit_kind, audit_project, audit_entry)
                           WITH ORDINALITY AS a(w, time, action, usr, kind, project, entry, i)
                     WHERE a.w = ANY (done)) AS d;
          PERFORM pg_notify(audit_channel, (audit_base + audited)::text);
        END IF;
        PERFORM pg_notify(events_channel, (base + n)::text);
      END
      $fn$;
    `,
  },
];

/** An arbitrary constant: the advisory lock key taken while migrating. */
const MIGRATION_LOCK = 0x64617368; // "dash"

/**
 * Brings the schema to the latest version; returns it. Refuses a database migrated by a newer
 * dashplane (its schema is unknown to this one).
 */
export async function migrate(client: PoolClient, database: string): Promise<number> {
  const latest = MIGRATIONS[MIGRATIONS.length - 1].version;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS dashplane_schema (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM dashplane_schema');
    const current = rows[0].v ?? 0;
    if (current > latest) {
      throw new Error(
        `the PostgreSQL database ${database} has dashplane schema version ${current}, newer than this dashplane knows (${latest}): upgrade dashplane`,
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO dashplane_schema (version, description) VALUES ($1, $2)', [m.version, m.description]);
    }
    await client.query('COMMIT');
    return latest;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
