import {
  alpha,
  Alert,
  Box,
  Button,
  Paper,
  Radio,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
  useTheme,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { displayName, getVersion, list, listManagers, listVersions, restoreVersion } from '../api';
import { canonicalLines } from '../canonical-text';
import { diffStats, folded, sideBySide, type DiffItem, type DiffRow } from '../diff';
import { pageOf } from '../links';
import { kindByPlural } from '../kinds';
import { useCan } from '../permissions';
import { ErrorMessage, Loading, PageHeader, timeAgo, VisuallyHidden } from '../widgets';

const enc = encodeURIComponent;

/**
 * The versions of an object — also of a deleted one, which a restore brings back — each with
 * who saved it and through what, a side-by-side diff of any two that ignores key order (dashctl's
 * canonical form) and folds unchanged lines, and restore.
 */
export function HistoryPage() {
  const { project, plural = 'dashboards', name = '' } = useParams();
  const kind = kindByPlural(plural);
  const { can } = useCan();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const key = [plural, project ?? '', name];
  // a list filtered by name answers [] for a deleted object (a GET of it would be a 404)
  const current = useQuery(['resource', ...key, 'or-deleted'], async () => {
    const found = (await list(plural, project, { name })).find((r) => r.metadata.name === name);
    return found ? { object: found } : null;
  });
  const deleted = current.data === null;
  const versions = useQuery(['versions', ...key], () => listVersions(plural, project, name));
  const managers = useQuery(['managers', ...key], () => listManagers(plural, project, name), { enabled: !!current.data });
  const latest = current.data?.object.metadata.version;
  const older = versions.data ?? [];
  const [left, setLeft] = useState<number>();
  const [right, setRight] = useState<number>();
  const newest = latest ?? older[0]?.version ?? 0;
  const leftVersion = left ?? (latest !== undefined ? older[0]?.version : older[1]?.version) ?? newest;
  const rightVersion = right ?? newest;

  const load = (v: number) => (v === latest && current.data ? Promise.resolve(current.data.object) : getVersion(plural, project, name, v));
  const ready = current.isSuccess;
  const leftObj = useQuery(['version', ...key, leftVersion, latest], () => load(leftVersion), { enabled: ready && versions.isSuccess });
  const rightObj = useQuery(['version', ...key, rightVersion, latest], () => load(rightVersion), { enabled: ready && versions.isSuccess });
  const rows = useMemo(
    () => (leftObj.data && rightObj.data ? sideBySide(canonicalLines(leftObj.data), canonicalLines(rightObj.data)) : []),
    [leftObj.data, rightObj.data],
  );
  // restoring an existing object updates it; restoring a deleted one creates it again
  const mayRestore = can(deleted ? 'create' : 'update', kind.kind, project, name);

  const restore = useMutation((version: number) => restoreVersion(plural, project, name, version), {
    onSuccess: async (restored) => {
      for (const k of ['resource', 'versions', 'managers', 'list', 'deleted']) await queryClient.invalidateQueries([k]);
      navigate(pageOf(plural, restored), { state: { restored: restored.metadata.version } });
    },
  });

  if (current.isLoading || versions.isLoading) return <Loading />;
  if (current.error || versions.error) return <ErrorMessage error={current.error ?? versions.error} />;
  const author = managers.data?.find((m) => m.version === latest);
  const all = [
    ...(current.data
      ? [
          {
            version: latest!,
            updatedAt: current.data.object.metadata.updatedAt,
            updatedBy: author?.updatedBy,
            manager: author?.manager,
            isCurrent: true,
          },
        ]
      : []),
    ...older.map((v) => ({ ...v, isCurrent: false })),
  ];
  const title = current.data ? displayName(current.data.object) : name;
  const crumbs = project
    ? [
        { label: project, to: `/projects/${enc(project)}${plural === 'dashboards' ? '' : `?tab=${plural}`}` },
        { label: title, ...(current.data ? { to: pageOf(plural, current.data.object) } : {}) },
        { label: 'History' },
      ]
    : [
        { label: 'Administration', to: `/admin?tab=${plural}` },
        { label: title, ...(current.data ? { to: pageOf(plural, current.data.object) } : {}) },
        { label: 'History' },
      ];

  return (
    <Box sx={{ pb: 4 }}>
      <PageHeader crumbs={crumbs} />
      {restore.error !== null && <ErrorMessage error={restore.error} />}
      <Box sx={{ px: 3 }}>
        {deleted && (
          <Alert severity="warning" sx={{ mb: 2, maxWidth: 1000 }} data-testid="deleted-banner">
            This {kind.label} was deleted. Its history is kept:{' '}
            {mayRestore ? 'restore a version to bring it back.' : 'someone who may create it can restore a version.'}
          </Alert>
        )}
        <Table size="small" aria-label="versions" sx={{ maxWidth: 1000 }}>
          <TableHead>
            <TableRow>
              <TableCell>Version</TableCell>
              <TableCell>Saved</TableCell>
              <TableCell>By</TableCell>
              <TableCell>Through</TableCell>
              <TableCell align="center">Left</TableCell>
              <TableCell align="center">Right</TableCell>
              <TableCell align="right">
                <VisuallyHidden>Actions</VisuallyHidden>
              </TableCell>
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
                  <Radio
                    size="small"
                    checked={leftVersion === v.version}
                    onChange={() => setLeft(v.version)}
                    inputProps={{ 'aria-label': `compare version ${v.version} on the left` }}
                  />
                </TableCell>
                <TableCell align="center">
                  <Radio
                    size="small"
                    checked={rightVersion === v.version}
                    onChange={() => setRight(v.version)}
                    inputProps={{ 'aria-label': `compare version ${v.version} on the right` }}
                  />
                </TableCell>
                <TableCell align="right">
                  {!v.isCurrent && mayRestore && (
                    <Button
                      size="small"
                      disabled={restore.isLoading}
                      onClick={() => restore.mutate(v.version)}
                      data-testid={`restore-${v.version}`}
                    >
                      {deleted ? 'Restore (undelete)' : 'Restore'}
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {all.length < 2 && (
          <Alert severity="info" sx={{ mt: 2, maxWidth: 1000 }}>
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

function DiffView({ rows }: { rows: DiffRow[] }) {
  const theme = useTheme();
  const [open, setOpen] = useState<Set<number>>(new Set());
  const items = useMemo(() => folded(rows), [rows]);
  const { changes, removed, added } = diffStats(rows);
  const red = alpha(theme.palette.error.main, theme.palette.mode === 'dark' ? 0.25 : 0.12);
  const green = alpha(theme.palette.success.main, theme.palette.mode === 'dark' ? 0.25 : 0.12);
  const colours: Record<DiffRow['type'], [string, string]> = {
    same: ['transparent', 'transparent'],
    removed: [red, 'transparent'],
    added: ['transparent', green],
    changed: [red, green],
  };
  const cell = { whiteSpace: 'pre-wrap', wordBreak: 'break-all', verticalAlign: 'top' } as const;
  const num = { width: 44, color: 'text.secondary', textAlign: 'right', pr: 1, userSelect: 'none', verticalAlign: 'top' } as const;
  // a line's change is said by a sign (− removed, + added), not by its colour only
  const sign = { display: 'inline-block', width: '2ch', userSelect: 'none', fontWeight: 'bold' } as const;
  const leftSign = (r: DiffRow) => (r.type === 'removed' || r.type === 'changed' ? '−' : '');
  const rightSign = (r: DiffRow) => (r.type === 'added' || r.type === 'changed' ? '+' : '');
  const line = (r: DiffRow, k: number) => (
    <tr key={k} data-diff={r.type}>
      <Box component="td" sx={num}>
        {r.left?.no}
      </Box>
      <Box component="td" sx={{ ...cell, bgcolor: colours[r.type][0], borderRight: 1, borderColor: 'divider' }}>
        {r.left && (
          <Box component="span" sx={{ ...sign, color: 'error.main' }}>
            {leftSign(r)}
            {leftSign(r) && <VisuallyHidden>removed: </VisuallyHidden>}
          </Box>
        )}
        {r.left?.text}
      </Box>
      <Box component="td" sx={num}>
        {r.right?.no}
      </Box>
      <Box component="td" sx={{ ...cell, bgcolor: colours[r.type][1] }}>
        {r.right && (
          <Box component="span" sx={{ ...sign, color: 'success.main' }}>
            {rightSign(r)}
            {rightSign(r) && <VisuallyHidden>added: </VisuallyHidden>}
          </Box>
        )}
        {r.right?.text}
      </Box>
    </tr>
  );
  const render = (item: DiffItem, k: number) => {
    if (item.type === 'row') return line(item.row, k);
    if (open.has(item.key)) return item.rows.map((r, j) => line(r, k * 100000 + j));
    return (
      <tr key={k} data-diff="fold">
        <Box component="td" colSpan={4} sx={{ bgcolor: 'action.hover', textAlign: 'center' }}>
          <Button size="small" onClick={() => setOpen(new Set([...open, item.key]))} data-testid="diff-fold">
            ⋯ {item.rows.length} unchanged line{item.rows.length === 1 ? '' : 's'}
          </Button>
        </Box>
      </tr>
    );
  };
  return (
    <Paper variant="outlined" sx={{ overflow: 'auto', maxHeight: '70vh' }} data-testid="diff">
      <Typography variant="caption" sx={{ display: 'block', p: 1 }} color="text.secondary" data-testid="diff-summary">
        {changes === 0
          ? 'No differences (key order is ignored).'
          : `${changes} change${changes === 1 ? '' : 's'}: ${removed} line${removed === 1 ? '' : 's'} removed, ${added} added (key order is ignored).`}
      </Typography>
      <Box
        component="table"
        sx={{
          width: '100%',
          tableLayout: 'fixed',
          borderCollapse: 'collapse',
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          fontSize: 12,
        }}
      >
        <tbody>{items.map(render)}</tbody>
      </Box>
    </Paper>
  );
}
