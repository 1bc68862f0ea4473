import { Alert, Box, Button, Paper, Radio, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { stringify } from 'yaml';
import { displayName, getResource, getVersion, listManagers, listVersions, restoreVersion, type Resource } from '../api';
import { sideBySide, type DiffRow } from '../diff';
import { ErrorMessage, Loading, PageHeader, timeAgo } from '../widgets';

/** The versions of a dashboard, a side-by-side diff of any two, and restore. */
export function HistoryPage() {
  const { project = '', plural = 'dashboards', name = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const current = useQuery(['resource', plural, project, name], () => getResource(plural, project, name));
  const versions = useQuery(['versions', plural, project, name], () => listVersions(plural, project, name));
  const managers = useQuery(['managers', plural, project, name], () => listManagers(plural, project, name));
  const latest = current.data?.object.metadata.version ?? 0;
  const older = versions.data ?? [];
  const [left, setLeft] = useState<number>();
  const [right, setRight] = useState<number>();
  const leftVersion = left ?? older[0]?.version ?? latest;
  const rightVersion = right ?? latest;
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const load = (v: number) => (v === latest && current.data ? Promise.resolve(current.data.object) : getVersion(plural, project, name, v));
  const leftObj = useQuery(['version', plural, project, name, leftVersion, latest], () => load(leftVersion), { enabled: current.data !== undefined });
  const rightObj = useQuery(['version', plural, project, name, rightVersion, latest], () => load(rightVersion), { enabled: current.data !== undefined });
  const rows = useMemo(
    () => (leftObj.data && rightObj.data ? sideBySide(toLines(leftObj.data), toLines(rightObj.data)) : []),
    [leftObj.data, rightObj.data],
  );

  const restore = async (version: number) => {
    setBusy(true);
    setError(undefined);
    try {
      const restored = await restoreVersion(plural, project, name, version);
      await queryClient.invalidateQueries(['resource', plural, project, name]);
      await queryClient.invalidateQueries(['versions', plural, project, name]);
      await queryClient.invalidateQueries(['managers', plural, project, name]);
      navigate(`/projects/${encodeURIComponent(project)}/${plural}/${encodeURIComponent(name)}`, { state: { restored: restored.metadata.version } });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  if (current.isLoading || versions.isLoading) return <Loading />;
  if (current.error || versions.error || !current.data) return <ErrorMessage error={current.error ?? versions.error} />;
  const author = managers.data?.find((m) => m.version === latest);
  const all = [
    { version: latest, updatedAt: current.data.object.metadata.updatedAt, updatedBy: author?.updatedBy, manager: author?.manager, isCurrent: true },
    ...older.map((v) => ({ ...v, isCurrent: false })),
  ];
  const base = `/projects/${encodeURIComponent(project)}`;

  return (
    <Box sx={{ pb: 4 }}>
      <PageHeader
        crumbs={[
          { label: project, to: base },
          { label: displayName(current.data.object), to: `${base}/${plural}/${encodeURIComponent(name)}` },
          { label: 'History' },
        ]}
      />
      {error !== undefined && <ErrorMessage error={error} />}
      <Box sx={{ px: 3 }}>
        <Table size="small" aria-label="versions" sx={{ maxWidth: 900 }}>
          <TableHead>
            <TableRow>
              <TableCell>Version</TableCell>
              <TableCell>Saved</TableCell>
              <TableCell>By</TableCell>
              <TableCell>Through</TableCell>
              <TableCell align="center">Left</TableCell>
              <TableCell align="center">Right</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {all.map((v) => (
              <TableRow key={v.version} data-testid="version-row" data-version={v.version}>
                <TableCell>
                  {v.version}
                  {v.isCurrent && ' (current)'}
                </TableCell>
                <TableCell title={v.updatedAt}>{timeAgo(v.updatedAt)}</TableCell>
                <TableCell data-testid="version-by">{v.updatedBy ?? ''}</TableCell>
                <TableCell data-testid="version-manager">{v.manager ?? ''}</TableCell>
                <TableCell align="center">
                  <Radio size="small" checked={leftVersion === v.version} onChange={() => setLeft(v.version)} inputProps={{ 'aria-label': `compare version ${v.version} on the left` }} />
                </TableCell>
                <TableCell align="center">
                  <Radio size="small" checked={rightVersion === v.version} onChange={() => setRight(v.version)} inputProps={{ 'aria-label': `compare version ${v.version} on the right` }} />
                </TableCell>
                <TableCell align="right">
                  {!v.isCurrent && (
                    <Button size="small" disabled={busy} onClick={() => restore(v.version)} data-testid={`restore-${v.version}`}>
                      Restore
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {older.length === 0 && (
          <Alert severity="info" sx={{ mt: 2, maxWidth: 900 }}>
            This is the first version: nothing to compare yet.
          </Alert>
        )}
        <Typography variant="h2" sx={{ mt: 3, mb: 1 }}>
          Version {leftVersion} ↔ version {rightVersion}
        </Typography>
        {leftObj.error || rightObj.error ? <ErrorMessage error={leftObj.error ?? rightObj.error} /> : <DiffView rows={rows} />}
      </Box>
    </Box>
  );
}

/** The object as YAML lines, without the fields every version changes. */
function toLines(r: Resource): string[] {
  const { version: _v, updatedAt: _u, ...metadata } = r.metadata;
  return stringify({ ...r, metadata }).split('\n');
}

const COLORS: Record<DiffRow['type'], [string, string]> = {
  same: ['transparent', 'transparent'],
  removed: ['#ffebe9', 'transparent'],
  added: ['transparent', '#e6ffec'],
  changed: ['#ffebe9', '#e6ffec'],
};

function DiffView({ rows }: { rows: DiffRow[] }) {
  const changed = rows.filter((r) => r.type !== 'same').length;
  return (
    <Paper variant="outlined" sx={{ overflow: 'auto', maxHeight: '70vh' }} data-testid="diff">
      <Typography variant="caption" sx={{ display: 'block', p: 1 }} color="text.secondary" data-testid="diff-summary">
        {changed === 0 ? 'No differences.' : `${changed} line${changed === 1 ? '' : 's'} differ.`}
      </Typography>
      <Box component="table" sx={{ width: '100%', tableLayout: 'fixed', borderCollapse: 'collapse', fontFamily: 'monospace', fontSize: 12 }}>
        <tbody>
          {rows.map((r, k) => (
            <tr key={k} data-diff={r.type}>
              <Box component="td" sx={{ width: 40, color: 'text.secondary', textAlign: 'right', pr: 1, userSelect: 'none' }}>
                {r.left?.no}
              </Box>
              <Box component="td" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', bgcolor: COLORS[r.type][0], borderRight: 1, borderColor: 'divider' }}>
                {r.left?.text}
              </Box>
              <Box component="td" sx={{ width: 40, color: 'text.secondary', textAlign: 'right', pr: 1, userSelect: 'none' }}>
                {r.right?.no}
              </Box>
              <Box component="td" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', bgcolor: COLORS[r.type][1] }}>
                {r.right?.text}
              </Box>
            </tr>
          ))}
        </tbody>
      </Box>
    </Paper>
  );
}
