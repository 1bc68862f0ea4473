import {
  Alert,
  Box,
  Button,
  Checkbox,
  Divider,
  FormControlLabel,
  IconButton,
  MenuItem,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import DeleteOutline from 'mdi-material-ui/DeleteOutline';
import Plus from 'mdi-material-ui/Plus';
import { list } from '../../api';
import { useCan } from '../../permissions';
import { type Endpoint, usePluginKinds, useSuggestedEndpoints } from '../plugins';
import { Field, specOf, withSpec, type FormProps } from './common';
import { YamlField } from './YamlField';

interface ProxySpec {
  url: string;
  allowedEndpoints?: Endpoint[] | undefined;
  headers?: Record<string, string> | undefined;
  secret?: string | undefined;
}
/** The spec of a datasource of an HTTP API (Prometheus, Loki, Tempo, Pyroscope): a direct URL or a proxy block. */
interface HttpSpec {
  directUrl?: string;
  proxy?: { kind: 'HTTPProxy'; spec: ProxySpec };
  scrapeInterval?: string | undefined;
  [other: string]: unknown;
}
interface DatasourceSpec {
  display?: { name?: string | undefined; description?: string };
  default?: boolean;
  plugin: { kind: string; spec: Record<string, unknown> };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** The port each service listens on out of the box, for the URL field's placeholder. */
const DEFAULT_PORTS: Record<string, number> = {
  PrometheusDatasource: 9090,
  LokiDatasource: 3100,
  TempoDatasource: 3200,
  PyroscopeDatasource: 4040,
};

/** `LokiDatasource` -> `Loki`: what the form calls the service. */
const serviceName = (kind: string) => kind.replace(/Datasource$/, '');

/**
 * A datasource: display name, default flag, and its plugin. Datasources of an HTTP API for which
 * the server suggests allowedEndpoints (Prometheus, Loki, Tempo, Pyroscope) get a form (URL,
 * direct or through dashplane's proxy, allowed endpoints, headers, secret); other kinds a YAML spec.
 */
export function DatasourceForm({ value, onChange, kind, project }: FormProps) {
  const spec = specOf<DatasourceSpec>(value);
  const kinds = usePluginKinds('Datasource');
  const set = (patch: Partial<DatasourceSpec>) => onChange(withSpec(value, { ...spec, ...patch }));
  const plugin = spec.plugin ?? { kind: 'PrometheusDatasource', spec: {} };
  const endpoints = useSuggestedEndpoints();
  const suggested = endpoints.get(plugin.kind);
  return (
    <Stack spacing={2}>
      <Field
        label="Display name"
        value={spec.display?.name}
        onChange={(v) => set({ display: { ...spec.display, name: v || undefined } })}
      />
      <FormControlLabel
        control={<Checkbox checked={spec.default === true} onChange={(e) => set({ default: e.target.checked })} />}
        label={`Default ${plugin.kind} ${kind.scope === 'project' ? 'of this project' : 'for every project'} (used by panels that name no datasource)`}
      />
      <Field
        select
        label="Type"
        value={plugin.kind}
        onChange={(k) => set({ plugin: { kind: k, spec: endpoints.has(k) ? { proxy: { kind: 'HTTPProxy', spec: { url: '' } } } : {} } })}
      >
        {(kinds.length ? kinds : [plugin.kind]).map((k) => (
          <MenuItem key={k} value={k}>
            {k}
          </MenuItem>
        ))}
      </Field>
      {suggested ? (
        <HttpFields
          pluginKind={plugin.kind}
          suggested={suggested}
          spec={plugin.spec as HttpSpec}
          onChange={(s) => set({ plugin: { ...plugin, spec: s as Record<string, unknown> } })}
          scope={kind.scope}
          project={project}
        />
      ) : (
        <YamlField
          label={`${plugin.kind} spec`}
          value={plugin.spec}
          onChange={(v) => set({ plugin: { ...plugin, spec: v as Record<string, unknown> } })}
        />
      )}
    </Stack>
  );
}

interface HttpFieldsProps {
  pluginKind: string;
  suggested: Endpoint[];
  spec: HttpSpec;
  onChange(s: HttpSpec): void;
  scope: 'project' | 'global';
  project?: string | undefined;
}

function HttpFields({ pluginKind, suggested, spec, onChange, scope, project }: HttpFieldsProps) {
  const name = serviceName(pluginKind);
  const { can } = useCan();
  const secretPlural = scope === 'project' ? 'secrets' : 'globalsecrets';
  const secretKind = scope === 'project' ? 'Secret' : 'GlobalSecret';
  const secrets = useQuery(['list', secretPlural, project ?? ''], () => list(secretPlural, project), {
    enabled: can('read', secretKind, project),
  });
  const direct = spec.directUrl !== undefined;
  const proxy = spec.proxy?.spec ?? { url: '' };
  const setProxy = (patch: Partial<ProxySpec>) => {
    const next = { ...proxy, ...patch };
    for (const k of Object.keys(next) as (keyof ProxySpec)[]) if (next[k] === undefined) delete next[k];
    onChange({ ...spec, proxy: { kind: 'HTTPProxy', spec: next } });
  };
  const setMode = (mode: 'proxy' | 'direct') => {
    const { directUrl: _d, proxy: _p, ...rest } = spec;
    const url = direct ? (spec.directUrl ?? '') : proxy.url;
    onChange(mode === 'direct' ? { ...rest, directUrl: url } : { ...rest, proxy: { kind: 'HTTPProxy', spec: { url } } });
  };
  const endpoints = proxy.allowedEndpoints;
  const headers = Object.entries(proxy.headers ?? {});
  const setHeaders = (rows: [string, string][]) => setProxy({ headers: rows.length ? Object.fromEntries(rows) : undefined });
  return (
    <>
      <ToggleButtonGroup
        size="small"
        exclusive
        value={direct ? 'direct' : 'proxy'}
        onChange={(_e, m: 'proxy' | 'direct' | null) => m && setMode(m)}
        aria-label="access"
      >
        <ToggleButton value="proxy">Through dashplane (proxy)</ToggleButton>
        <ToggleButton value="direct">Browser calls it directly</ToggleButton>
      </ToggleButtonGroup>
      {direct ? (
        <Alert severity="warning" data-testid="direct-url-note">
          dashplane's web UI cannot use a direct URL: its pages may call only dashplane (Content-Security-Policy{' '}
          <code>connect-src 'self'</code>), so the browser blocks the call and its dashboards show errors. A direct URL serves other clients
          of this datasource (Perses, scripts); for dashboards here, choose “Through dashplane (proxy)”.
        </Alert>
      ) : (
        <Typography variant="body2" color="text.secondary" data-testid="direct-url-note">
          dashplane's web UI reaches datasources only through its proxy; a direct URL serves other clients (Perses, scripts).
        </Typography>
      )}
      <Field
        label={`${name} URL`}
        value={direct ? spec.directUrl : proxy.url}
        onChange={(v) => (direct ? onChange({ ...spec, directUrl: v }) : setProxy({ url: v }))}
        placeholder={`http://${name.toLowerCase()}:${DEFAULT_PORTS[pluginKind] ?? 80}`}
        required
        helperText={
          direct
            ? `Clients that call it directly must reach this URL, and ${name} must allow them (CORS).`
            : 'dashplane calls this URL for the users of the datasource; they never see it or its credentials.'
        }
      />
      {pluginKind === 'PrometheusDatasource' && (
        <Field
          label="Scrape interval"
          value={spec.scrapeInterval as string | undefined}
          onChange={(v) => onChange({ ...spec, scrapeInterval: v || undefined })}
          placeholder="15s"
          helperText="The smallest step of range queries."
        />
      )}
      {!direct && (
        <>
          <Divider textAlign="left">Allowed endpoints</Divider>
          <Typography variant="body2" color="text.secondary">
            {endpoints
              ? 'Only these calls go through the proxy (others answer 403).'
              : 'Every path is allowed. Restricting to what panels need is safer.'}
          </Typography>
          {(endpoints ?? []).map((e, i) => (
            <Box key={i} sx={{ display: 'flex', gap: 1 }} data-testid="endpoint-row">
              <Field
                select
                label="Method"
                value={e.method}
                onChange={(m) => setProxy({ allowedEndpoints: endpoints!.map((x, j) => (j === i ? { ...x, method: m } : x)) })}
                sx={{ width: 120 }}
              >
                {METHODS.map((m) => (
                  <MenuItem key={m} value={m}>
                    {m}
                  </MenuItem>
                ))}
              </Field>
              <Field
                label="Path pattern"
                value={e.endpointPattern}
                onChange={(p) => setProxy({ allowedEndpoints: endpoints!.map((x, j) => (j === i ? { ...x, endpointPattern: p } : x)) })}
              />
              <IconButton
                aria-label={`Remove endpoint ${e.method} ${e.endpointPattern}`}
                onClick={() => setProxy({ allowedEndpoints: endpoints!.filter((_x, j) => j !== i) })}
              >
                <DeleteOutline />
              </IconButton>
            </Box>
          ))}
          <Stack direction="row" spacing={1}>
            <Button
              size="small"
              startIcon={<Plus />}
              onClick={() => setProxy({ allowedEndpoints: [...(endpoints ?? []), { method: 'GET', endpointPattern: '' }] })}
            >
              Add endpoint
            </Button>
            {!endpoints && (
              <Button size="small" onClick={() => setProxy({ allowedEndpoints: suggested })}>
                Allow only what {name} panels use
              </Button>
            )}
            {endpoints && (
              <Button size="small" onClick={() => setProxy({ allowedEndpoints: undefined })}>
                Allow every path
              </Button>
            )}
          </Stack>
          <Divider textAlign="left">Headers sent to {name}</Divider>
          {headers.map(([k, v], i) => (
            <Box key={i} sx={{ display: 'flex', gap: 1 }}>
              <Field label="Header" value={k} onChange={(nk) => setHeaders(headers.map((h, j) => (j === i ? [nk, h[1]] : h)))} />
              <Field label="Value" value={v} onChange={(nv) => setHeaders(headers.map((h, j) => (j === i ? [h[0], nv] : h)))} />
              <IconButton aria-label={`Remove header ${k}`} onClick={() => setHeaders(headers.filter((_h, j) => j !== i))}>
                <DeleteOutline />
              </IconButton>
            </Box>
          ))}
          <Box>
            <Button size="small" startIcon={<Plus />} onClick={() => setHeaders([...headers, ['', '']])}>
              Add header
            </Button>
          </Box>
          <Field
            select
            label="Credentials (secret)"
            value={proxy.secret ?? ''}
            onChange={(v) => setProxy({ secret: v || undefined })}
            helperText={`A ${secretKind}${scope === 'project' ? ' of this project' : ''}: basic auth, a bearer token, TLS client certificates.`}
          >
            <MenuItem value="">
              <em>none</em>
            </MenuItem>
            {(secrets.data ?? []).map((s) => (
              <MenuItem key={s.metadata.name} value={s.metadata.name}>
                {s.metadata.name}
              </MenuItem>
            ))}
            {proxy.secret && !(secrets.data ?? []).some((s) => s.metadata.name === proxy.secret) && (
              <MenuItem value={proxy.secret}>{proxy.secret}</MenuItem>
            )}
          </Field>
        </>
      )}
    </>
  );
}
