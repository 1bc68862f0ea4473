import { Alert, Box, Button, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { DashboardResource } from '@perses-dev/core';
import { ViewDashboard } from '@perses-dev/dashboards';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { QueryParamProvider, type QueryParamAdapterComponent } from 'use-query-params';
import { parse } from 'yaml';
import { type ApiError, createResource, enc, list, migrateGrafana, type MigrationReport, type Resource, validationWarnings } from '../api';
import { DatasourceWarnings } from '../datasource-warnings';
import { DraftOfferAlert, useDraft } from '../DraftOffer';
import { draftKey } from '../drafts';
import { useDatasourceApi } from '../datasource-api';
import { jsonErrorText, looksLikeJson } from '../json-error';
import { useCan } from '../permissions';
import { MigrationReportView, undrawnPanels } from '../migration-report';
import { ErrorMessage, PageHeader } from '../widgets';

interface Preview {
  dashboard: Resource;
  report?: MigrationReport;
  from: 'Grafana' | 'Perses';
  /** Changes with every conversion, so the Perses components start afresh. */
  seq: number;
}

/** What the page keeps of an import not yet saved. */
interface ImportDraft {
  text: string;
  project: string;
  name: string;
  datasource: string;
}

const isPersesDashboard = (v: unknown): v is Resource => {
  const o = v as Partial<Resource> | null;
  return !!o && typeof o === 'object' && o.kind === 'Dashboard' && !!o.spec && typeof o.spec === 'object';
};

/** The Prometheus datasources a migrated dashboard may use: the project's and the global ones (if the user may read them). */
async function prometheusDatasources(project: string, readGlobal: boolean): Promise<{ name: string; global: boolean }[]> {
  const [own, global] = await Promise.all([
    list('datasources', project),
    readGlobal ? list('globaldatasources').catch(() => [] as Resource[]) : [],
  ]);
  const prom = (r: Resource) => /^(Prometheus|Metrics)Datasource$/.test(String((r.spec as { plugin?: { kind?: string } }).plugin?.kind));
  return [
    ...own.filter(prom).map((r) => ({ name: r.metadata.name, global: false })),
    ...global.filter(prom).map((r) => ({ name: r.metadata.name, global: true })),
  ];
}

/**
 * Import: paste or upload a Grafana dashboard (migrated by POST /api/migrate, with its report) or
 * a Perses one (JSON or YAML), see it rendered by the Perses components with the project's
 * datasources, choose project, name and datasource, and save it.
 */

/**
 * The preview's own URL query: Perses' view reads its time range and variables from the page's
 * query when it opens, and writes them back a tick after each change (use-query-params). Kept here,
 * those writes never reach the page's URL: one landing after the save's navigation took the browser
 * back to Import.
 */
const PreviewQuery: QueryParamAdapterComponent = ({ children }) => {
  const [location, setLocation] = useState<{ search: string; state?: unknown }>(() => ({ search: window.location.search }));
  const adapter = useMemo(() => ({ location, push: setLocation, replace: setLocation }), [location]);
  return children(adapter);
};

export function ImportPage() {
  const { project: fromPath } = useParams();
  const navigate = useNavigate();
  const projects = useQuery(['list', 'projects'], () => list('projects'));
  const fileInput = useRef<HTMLInputElement>(null);
  const [project, setProject] = useState(fromPath ?? '');
  const { can, ready } = useCan();
  const readGlobal = can('read', 'GlobalDatasource');
  const datasources = useQuery(['import-datasources', project, readGlobal], () => prometheusDatasources(project, readGlobal), {
    enabled: project !== '' && ready,
  });
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [datasource, setDatasource] = useState('');
  const [preview, setPreview] = useState<Preview>();
  const datasourceApi = useDatasourceApi();

  useEffect(() => {
    if (!project && projects.data?.length) setProject(projects.data[0].metadata.name);
  }, [project, projects.data]);

  // the pasted text and the choices are kept in the tab until imported (a session that ends, a reload: drafts.ts)
  const form: ImportDraft = { text, project, name, datasource };
  const kept = useDraft<ImportDraft>(draftKey('import', 'Dashboard', undefined, ''), form, { ...form, text: '' }, -1);

  // Preview: the pasted text parsed (a text that does not parse is this mutation's error too, so one
  // error is shown at a time) and, for a Grafana export, migrated by the server with its report
  const converting = useMutation(
    async (o: { text: string; ds: string; target: string; wanted: string }): Promise<Omit<Preview, 'seq'>> => {
      let parsed: unknown;
      // a Grafana export is JSON: its errors are told as JSON's (a YAML parser's words about flow mappings misled)
      const json = looksLikeJson(o.text);
      try {
        parsed = json ? JSON.parse(o.text) : parse(o.text);
      } catch (e) {
        throw new Error(
          json
            ? `The text is not valid JSON: ${jsonErrorText(o.text, e)}.`
            : `The text is not JSON or YAML: ${(e as Error).message.split('\n')[0]}`,
        );
      }
      if (isPersesDashboard(parsed)) return { dashboard: parsed, from: 'Perses' };
      return { ...(await migrateGrafana(parsed, { project: o.target, datasource: o.ds, name: o.wanted })), from: 'Grafana' };
    },
    {
      onSuccess: (converted, { wanted }) => {
        setPreview((p) => ({ ...converted, seq: (p?.seq ?? 0) + 1 }));
        if (converted.from === 'Grafana') setName(converted.dashboard.metadata.name);
        else if (!wanted) setName(converted.dashboard.metadata?.name ?? '');
      },
    },
  );
  const convert = (ds = datasource, target = project, wanted = name) => {
    saving.reset();
    converting.mutate({ text, ds, target, wanted });
  };

  // the name and project are the ones saved with, so a refusal names them even once the field changes
  const saving = useMutation(
    async (o: { dashboard: Resource; project: string; name: string }) => {
      try {
        return await createResource('dashboards', o.project, {
          ...o.dashboard,
          metadata: { ...o.dashboard.metadata, name: o.name, project: o.project },
        });
      } catch (e) {
        throw (e as ApiError).status === 409
          ? new Error(`A dashboard named "${o.name}" already exists in ${o.project}: choose another name.`)
          : e;
      }
    },
    {
      onSuccess: (_saved, o) => {
        // the preview goes first: its time range and variables write the URL's query a tick after each
        // change (use-query-params), from this page's location, and such a write landing after the
        // navigation took the browser back here (the effect below navigates once it is gone)
        setPreview(undefined);
        setSavedTo(`/projects/${enc(o.project)}/dashboards/${enc(o.name)}`);
      },
    },
  );
  const save = () => {
    if (!preview) return;
    converting.reset();
    saving.mutate({ dashboard: preview.dashboard, project, name });
  };
  const error = converting.error ?? saving.error;
  // a saved dashboard keeps the buttons off until the page has left for it
  const busy = converting.isLoading || saving.isLoading || saving.isSuccess;

  const [savedTo, setSavedTo] = useState<string>();
  const keptNow = useRef(kept);
  keptNow.current = kept;
  useEffect(() => {
    if (!savedTo) return;
    const timer = setTimeout(() => {
      keptNow.current.forget(); // here: the render without the preview kept the form again
      navigate(savedTo);
    }, 0);
    return () => clearTimeout(timer);
  }, [savedTo, navigate]);

  const upload = async (file: File | undefined) => {
    if (file) setText(await file.text());
  };
  // a new project or datasource changes the migration (datasource names, unique name): convert again
  const choose = (ds: string, target: string) => {
    setDatasource(ds);
    setProject(target);
    // in another project the derived name may be taken: derive it again
    const wanted = target === project ? name : '';
    if (wanted !== name) setName(wanted);
    if (preview?.from === 'Grafana') convert(ds, target, wanted);
  };
  const undrawn = preview?.report ? undrawnPanels(preview.report) : [];
  // The preview's dashboard changes only with a new conversion or project, not with each letter of
  // the name: Perses' view writes its time range and variables into the URL a tick after each new
  // dashboard (use-query-params, from this page's location), and such a write pending at save time
  // took the browser back to Import after the navigation.
  const shown = useMemo(
    () => preview && ({ ...preview.dashboard, metadata: { ...preview.dashboard.metadata, project } } as unknown as DashboardResource),
    [preview, project],
  );
  // the datasources its queries ask for that the project will not have (the server's warnings)
  const warnings = useQuery(['import-warnings', project, preview?.seq], () => validationWarnings('dashboards', shown), {
    enabled: !!shown && project !== '',
  });

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', flexGrow: 1 }}>
      <PageHeader
        crumbs={[...(fromPath ? [{ label: fromPath, to: `/projects/${enc(fromPath)}` }] : []), { label: 'Import a dashboard' }]}
      />
      <Stack spacing={2} sx={{ px: 3, pb: 2 }}>
        <DraftOfferAlert
          state={kept}
          onRestore={(d) => {
            setText(d.value.text);
            if (d.value.project) setProject(d.value.project);
            setName(d.value.name);
            setDatasource(d.value.datasource);
            setPreview(undefined);
          }}
        />
        <TextField
          label="Grafana or Perses dashboard (JSON or YAML)"
          multiline
          minRows={6}
          maxRows={14}
          value={text}
          onChange={(e) => setText(e.target.value)}
          inputProps={{ 'aria-label': 'dashboard text', spellCheck: false, style: { fontFamily: 'monospace', fontSize: 13 } }}
        />
        <Stack direction="row" spacing={2} alignItems="center" flexWrap="wrap" useFlexGap>
          {/* a button that opens the file chooser (a <label> styled as a button was no button to assistive technology) */}
          <Button variant="outlined" onClick={() => fileInput.current?.click()}>
            Upload a file
          </Button>
          <input
            ref={fileInput}
            hidden
            type="file"
            accept=".json,.yaml,.yml,application/json"
            data-testid="import-file"
            onChange={(e) => void upload(e.target.files?.[0])}
          />
          <TextField
            select
            size="small"
            label="Project"
            value={project}
            onChange={(e) => choose(datasource, e.target.value)}
            sx={{ minWidth: 200 }}
            inputProps={{ 'data-testid': 'import-project' }}
          >
            {(projects.data ?? []).map((p) => (
              <MenuItem key={p.metadata.name} value={p.metadata.name}>
                {p.metadata.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            size="small"
            label="Prometheus datasource"
            value={datasource}
            onChange={(e) => choose(e.target.value, project)}
            sx={{ minWidth: 240 }}
            SelectProps={{ displayEmpty: true }}
            InputLabelProps={{ shrink: true }}
          >
            <MenuItem value="">the project&apos;s default</MenuItem>
            {(datasources.data ?? []).map((d) => (
              <MenuItem key={`${d.global}/${d.name}`} value={d.name}>
                {d.name}
                {d.global ? ' (global)' : ''}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            size="small"
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            inputProps={{ 'aria-label': 'dashboard name' }}
          />
          <Button variant="contained" disabled={busy || !text.trim() || !project} onClick={() => convert()} data-testid="import-preview">
            Preview
          </Button>
          <Button variant="contained" color="success" disabled={busy || !preview || !name} onClick={save} data-testid="import-save">
            Save to {project || 'project'}
          </Button>
        </Stack>
        {!!error && <ErrorMessage error={error} />}
        {preview?.from === 'Perses' && <Alert severity="info">This is already a Perses dashboard: it is imported as it is.</Alert>}
        {preview?.report && <MigrationReportView report={preview.report} />}
        {shown && warnings.data && (
          <DatasourceWarnings dashboard={shown as unknown as Resource} warnings={warnings.data} project={project} />
        )}
        {undrawn.length > 0 && (
          <Alert severity="warning" data-testid="import-not-drawn">
            {undrawn.length === 1 ? 'One panel is' : `${undrawn.length} panels are`} not drawn by this web UI (the report says why):{' '}
            {undrawn.map((e) => e.source).join(', ')}.
          </Alert>
        )}
      </Stack>
      {shown && datasourceApi && (
        <Box
          sx={{ flexGrow: 1, display: 'flex', flexDirection: 'column', borderTop: 1, borderColor: 'divider' }}
          data-testid="import-preview-dashboard"
        >
          <Typography variant="subtitle2" sx={{ px: 3, pt: 1 }} color="text.secondary">
            Preview of {shown.spec.display?.name ?? shown.metadata.name}
          </Typography>
          <QueryParamProvider adapter={PreviewQuery}>
            <ViewDashboard
              key={preview!.seq}
              dashboardResource={shown}
              datasourceApi={datasourceApi}
              isReadonly
              isVariableEnabled
              isDatasourceEnabled
              isEditing={false}
              dashboardTitleComponent={<span />}
            />
          </QueryParamProvider>
        </Box>
      )}
    </Box>
  );
}
