import { Command } from 'commander';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toHttpError } from '../api-client.js';
import { sameJson, withoutServerFields } from '../compare.js';
import { editHeader, parseEdited, runEditor, withoutComments } from '../editor.js';
import type { Env } from '../env.js';
import { CliError, HttpError } from '../errors.js';
import { label, objectPath, resolveKind } from '../kinds.js';
import { toYaml } from '../output.js';

/** Statuses after which the same object, edited again, may well be accepted. */
const FIXABLE = new Set([400, 409, 422]);

/**
 * `dashctl edit KIND NAME`: the object as YAML in `$EDITOR`, saved with `If-Match` (the ETag of
 * the read). A rejected edit reopens with the server's errors as comments at the top (as
 * `kubectl edit` does); an empty or unchanged file cancels (exit 0).
 */
export function makeEditCommand(env: Env): Command {
  return new Command('edit')
    .description('edit an object in $EDITOR (else $VISUAL, else vi) and save it if it changed')
    .argument('<kind>', 'kind, plural or short name')
    .argument('<name>', 'object name')
    .option('-p, --project <name>', 'project (default: the saved default project)')
    .action(async (kind: string, name: string, flags: { project?: string }) => {
      const ctx = env.ctx();
      const io = ctx.io;
      const d = resolveKind(kind);
      const project = ctx.projectFor(d, flags.project);
      const path = objectPath(d, name, project);
      const api = ctx.client();
      const res = await api.request('GET', path);
      if (res.status === 404)
        throw new CliError(
          `${label(d, name, project)} not found (dashctl get ${d.plural}${project !== undefined ? ` -p ${project}` : ''} lists them)`,
        );
      if (res.status !== 200) throw toHttpError('GET', path, res);
      const etag = res.headers.get('etag') ?? `"${res.body?.metadata?.version}"`;
      const original = withoutServerFields(res.body);
      const what = `${label(d, name, project)} (version ${res.body?.metadata?.version}; saved with If-Match: ${etag})`;
      const dir = mkdtempSync(join(tmpdir(), 'dashctl-edit-'));
      const file = join(dir, `${d.kind.toLowerCase()}-${name}.yaml`);
      let keep = false;
      const giveUp = (why: string) => {
        keep = true;
        return new CliError(`${why}; your edit is kept in ${file}`);
      };
      try {
        let body = toYaml(original);
        let errors: string[] = [];
        let failed: string | undefined;
        for (;;) {
          writeFileSync(file, editHeader(what, errors) + body, { mode: 0o600 });
          await runEditor(file, io.env);
          const edited = withoutComments(readFileSync(file, 'utf8'));
          const parsed = edited.trim() ? parseEdited(edited) : undefined;
          if (!parsed || ('value' in parsed && sameJson(parsed.value, original))) return io.out('Edit cancelled, no changes made.\n');
          if (edited === failed) throw giveUp('the same edit failed again');
          body = edited;
          failed = edited;
          if ('error' in parsed) {
            errors = [parsed.error];
            continue;
          }
          try {
            await api.call('PUT', path, { body: parsed.value, headers: { 'if-match': etag } });
            return io.out(`${label(d, name, project)} edited\n`);
          } catch (e) {
            if (!(e instanceof HttpError)) throw e;
            if (e.status === 412)
              throw giveUp(`${label(d, name, project)} was changed by someone else while you edited it (dashctl edit it again)`);
            if (!FIXABLE.has(e.status)) throw giveUp(`the server refused the edit: ${e.describe()}`);
            errors = e.describe().split('\n');
          }
        }
      } finally {
        if (!keep) rmSync(dir, { recursive: true, force: true });
      }
    });
}
