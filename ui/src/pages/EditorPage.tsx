import { Alert, Box, Button, List, ListItemButton, ListItemText, Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { parse, parseDocument, stringify, YAMLParseError } from 'yaml';
import { type ApiError, getResource, putResource, type Resource } from '../api';
import { DraftOfferAlert, useDraft } from '../DraftOffer';
import { draftKey } from '../drafts';
import { CodeEditor, type CodeEditorHandle } from '../editor/CodeEditor';
import { useSchemas } from '../editor/schemas';
import { ManagedBanner, useConfirmOverwrite, useManagedFromGit } from '../managed';
import { lineOfPath } from '../paths';
import { useCan } from '../permissions';
import { ErrorMessage, Loading, PageHeader } from '../widgets';

type Format = 'yaml' | 'json';

interface Problem {
  path: string;
  message: string;
  line?: number | undefined;
}

const serialize = (obj: unknown, format: Format) => (format === 'json' ? `${JSON.stringify(obj, null, 2)}\n` : stringify(obj));

/**
 * Any resource as JSON or YAML. Saving sends If-Match with the version that was loaded: if
 * someone else saved in between the server answers 412 and the page says so, keeping the text.
 * Validation errors are listed with their paths and marked at their lines.
 */
export function EditorPage() {
  const { project, plural = '', name = '' } = useParams();
  const key = ['resource', plural, project ?? '', name];
  const queryClient = useQueryClient();
  const loaded = useQuery(key, () => getResource(plural, project, name), { refetchOnMount: 'always' });
  const [format, setFormat] = useState<Format>('yaml');
  const [text, setText] = useState<string>();
  const [etag, setEtag] = useState<string>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const [message, setMessage] = useState<{ severity: 'success' | 'error' | 'warning' | 'info'; text: string }>();
  const [conflict, setConflict] = useState(false);
  const editor = useRef<CodeEditorHandle>(null);
  const fromGit = useManagedFromGit(plural, project, name, versionOf(etag));
  const overwrite = useConfirmOverwrite(fromGit, `this ${plural.replace(/s$/, '')}`);
  const schemas = useSchemas(plural);
  const { can } = useCan();
  // the text as loaded or last saved: a different text is kept in the tab until saved (drafts.ts)
  const [baseline, setBaseline] = useState<string>();
  const draft = useDraft<{ text: string; format: Format }>(
    baseline === undefined ? undefined : draftKey('editor', plural, project, name),
    text === undefined ? undefined : { text, format },
    baseline === undefined ? undefined : { text: baseline, format },
    versionOf(etag),
  );

  useEffect(() => {
    if (loaded.data && text === undefined) {
      setText(serialize(loaded.data.object, format));
      setBaseline(serialize(loaded.data.object, format));
      setEtag(loaded.data.etag);
    }
  }, [loaded.data, text, format]);

  /** Replaces the editor's text (and the page's copy of it). */
  const replaceText = (next: string) => {
    setText(next);
    editor.current?.setText(next);
  };

  const parseText = (): unknown => {
    try {
      return format === 'json' ? JSON.parse(text ?? '') : parse(text ?? '');
    } catch (e) {
      const line = e instanceof YAMLParseError ? e.linePos?.[0].line : jsonErrorLine(text ?? '', e as Error);
      setProblems([{ path: '(text)', message: (e as Error).message.split('\n')[0], line }]);
      setMessage({ severity: 'error', text: `The text is not valid ${format.toUpperCase()}.` });
      return undefined;
    }
  };

  // a check (dry run) or a save of the parsed text; the answer is told in `message` and `problems`
  const sending = useMutation((o: { body: unknown; dryRun: boolean }) => putResource(plural, project, name, o.body, etag, o.dryRun), {
    onSuccess: (saved, { dryRun }) => {
      if (dryRun) {
        setMessage({ severity: 'success', text: 'Valid: the server accepts this.' });
      } else {
        setEtag(saved.etag);
        draft.forget();
        setBaseline(serialize(saved.object, format));
        replaceText(serialize(saved.object, format));
        queryClient.setQueryData(key, saved);
        setMessage({ severity: 'success', text: `Saved: version ${saved.object.metadata.version}.` });
      }
    },
    onError: (e, { body }) => {
      const err = e as ApiError;
      if (err.status === 412) {
        setConflict(true);
        setMessage({
          severity: 'warning',
          text: `Someone else saved this ${kindOf(body)} first, after you opened it. Your text is kept here: load their version to see what changed, then apply your edit again.`,
        });
      } else {
        const doc = parseDocument(text ?? '');
        setProblems((err.details ?? []).map((d) => ({ ...d, line: lineOfPath(text ?? '', d.path, doc) })));
        setMessage({ severity: 'error', text: err.message });
      }
    },
  });
  const busy = sending.isLoading;
  const submit = async (dryRun: boolean) => {
    setMessage(undefined);
    setProblems([]);
    setConflict(false);
    const body = parseText();
    if (body === undefined) return;
    if (!dryRun && !(await overwrite.confirm())) return;
    sending.mutate({ body, dryRun });
  };

  const reload = async () => {
    const fresh = await loaded.refetch();
    if (fresh.data) {
      draft.forget();
      setBaseline(serialize(fresh.data.object, format));
      replaceText(serialize(fresh.data.object, format));
      setEtag(fresh.data.etag);
      setConflict(false);
      setProblems([]);
      setMessage({ severity: 'info', text: `Loaded version ${fresh.data.object.metadata.version}.` });
    }
  };

  const switchFormat = (next: Format | null) => {
    if (!next || next === format) return;
    const body = parseText();
    if (body === undefined) return;
    setFormat(next);
    replaceText(serialize(body, next));
    setProblems([]);
  };

  const goToLine = (line?: number) => {
    if (line !== undefined) editor.current?.goToLine(line);
  };

  // show the first problem where it is
  useEffect(() => {
    const first = problems.find((p) => p.line !== undefined);
    if (first) goToLine(first.line);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [problems]);

  if (loaded.isLoading) return <Loading />;
  if (loaded.error || !loaded.data) return <ErrorMessage error={loaded.error} />;
  const object = loaded.data.object as Resource;
  const viewable = plural === 'dashboards' || plural === 'ephemeraldashboards';
  // a user who may not update it gets no enabled Save (it would answer 403); a project is its own scope
  const mayUpdate = can('update', object.kind, project ?? (plural === 'projects' ? name : undefined), name);
  const crumbs = project
    ? [
        { label: project, to: `/projects/${encodeURIComponent(project)}${plural === 'dashboards' ? '' : `?tab=${plural}`}` },
        ...(viewable
          ? [{ label: name, to: `/projects/${encodeURIComponent(project)}/${plural}/${encodeURIComponent(name)}` }]
          : [{ label: name }]),
        ...(viewable ? [{ label: 'Edit' }] : []),
      ]
    : plural === 'projects'
      ? [{ label: name, to: `/projects/${encodeURIComponent(name)}` }, { label: 'Edit' }]
      : [{ label: 'Administration', to: `/admin?tab=${plural}` }, { label: name }];

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flexGrow: 1, pb: 2 }}>
      <PageHeader
        crumbs={crumbs}
        actions={
          <Stack direction="row" spacing={1} alignItems="center">
            <Typography variant="caption" color="text.secondary">
              {object.kind} · {mayUpdate ? 'editing' : 'read-only (you may not update it):'} version {etag?.replace(/"/g, '')}
            </Typography>
            <ToggleButtonGroup
              size="small"
              exclusive
              value={format}
              onChange={(_e, v: Format | null) => switchFormat(v)}
              aria-label="format"
            >
              <ToggleButton value="yaml">YAML</ToggleButton>
              <ToggleButton value="json">JSON</ToggleButton>
            </ToggleButtonGroup>
            <Button size="small" onClick={reload} disabled={busy}>
              Reload
            </Button>
            <Button size="small" variant="outlined" onClick={() => submit(true)} disabled={busy || !mayUpdate}>
              Validate
            </Button>
            <Button size="small" variant="contained" onClick={() => submit(false)} disabled={busy || !mayUpdate} data-testid="save">
              Save
            </Button>
            {viewable && project && (
              <Button
                size="small"
                component={RouterLink}
                to={`/projects/${encodeURIComponent(project)}/${plural}/${encodeURIComponent(name)}`}
              >
                View
              </Button>
            )}
          </Stack>
        }
      />
      {fromGit && <ManagedBanner writer={fromGit} what={`this ${object.kind}`} />}
      {overwrite.dialog}
      <Box sx={{ px: 3 }}>
        <DraftOfferAlert
          state={draft}
          current={versionOf(etag)}
          onRestore={(kept) => {
            setFormat(kept.value.format);
            replaceText(kept.value.text);
            // saved with the version it was made to: a newer one answers 412 and the page says so, keeping the text
            setEtag(`"${kept.version}"`);
            setMessage({ severity: 'info', text: `Restored your unsaved text, made to version ${kept.version}.` });
          }}
        />
        {message && (
          <Alert
            severity={message.severity}
            sx={{ mb: 1 }}
            data-testid="editor-message"
            action={
              conflict ? (
                <Button color="inherit" size="small" onClick={reload}>
                  Load their version
                </Button>
              ) : undefined
            }
          >
            {message.text}
          </Alert>
        )}
        {problems.length > 0 && (
          <List
            dense
            sx={{ mb: 1, border: 1, borderColor: 'error.light', borderRadius: 1, maxHeight: 200, overflow: 'auto' }}
            data-testid="problems"
          >
            {problems.map((p, i) => (
              <ListItemButton key={i} onClick={() => goToLine(p.line)} data-testid="problem" data-path={p.path} data-line={p.line}>
                <ListItemText
                  primary={
                    <span>
                      <code>{p.path}</code>
                      {p.line !== undefined && (
                        <Typography component="span" variant="caption" color="text.secondary">{` · line ${p.line}`}</Typography>
                      )}
                    </span>
                  }
                  secondary={p.message}
                />
              </ListItemButton>
            ))}
          </List>
        )}
      </Box>
      <Box
        sx={{
          mx: 3,
          height: 'calc(100vh - 200px)',
          minHeight: 400,
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
          overflow: 'hidden',
        }}
      >
        {text !== undefined && (
          <CodeEditor
            ref={editor}
            initial={text}
            format={format}
            onChange={setText}
            problems={problems.filter((p): p is Problem & { line: number } => p.line !== undefined)}
            assist={schemas}
            label={`${object.kind} ${name} as ${format.toUpperCase()}`}
          />
        )}
      </Box>
    </Box>
  );
}

/** The version an ETag names (`"4"`). */
function versionOf(etag: string | undefined): number | undefined {
  return etag === undefined ? undefined : Number(etag.replace(/\D/g, ''));
}

function kindOf(body: unknown): string {
  return (body as { kind?: string } | null)?.kind ?? 'resource';
}

/** V8's JSON.parse messages carry "position N"; turn that into a line. */
function jsonErrorLine(text: string, e: Error): number | undefined {
  const m = /position (\d+)/.exec(e.message);
  if (!m) return undefined;
  return text.slice(0, Number(m[1])).split('\n').length;
}
