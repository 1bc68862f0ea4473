import { Alert, Box, Button, Link, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { displayName, enc, getJson, restoreVersion, type Resource, type VersionEntry } from '../api';
import { pageOf } from '../links';
import { useCan } from '../permissions';
import { ErrorMessage, ListBody, timeAgo, VisuallyHidden } from '../widgets';
import type { KindUi } from '../kinds';

interface Deleted extends VersionEntry {
  name: string;
  /** The last version's display name, when it has one. */
  title?: string;
  kind: KindUi;
}

const deletedUrl = (plural: string, project?: string) =>
  project ? `/api/v1/projects/${enc(project)}/deleted/${plural}` : `/api/v1/deleted/${plural}`;

/**
 * Deleted objects whose history is kept (of every kind here that keeps one and the user may
 * read), most recently changed first: each can be restored (undeleted) at its last version, or its
 * history opened.
 */
export function DeletedList({ kinds, project }: { kinds: KindUi[]; project?: string }) {
  const { can } = useCan();
  const queryClient = useQueryClient();
  const readable = kinds.filter((k) => k.history && can('read', k.kind, project));
  const deleted = useQuery(['deleted', project ?? '', readable.map((k) => k.plural).join(',')], async () => {
    const lists = await Promise.all(
      readable.map(async (k) =>
        (await getJson<(VersionEntry & { name: string; title?: string })[]>(deletedUrl(k.plural, project))).map((e) => ({ ...e, kind: k })),
      ),
    );
    return lists.flat().sort((a, b) => ((a.updatedAt ?? '') < (b.updatedAt ?? '') ? 1 : -1)) as Deleted[];
  });
  const [restored, setRestored] = useState<Resource & { plural: string }>();
  const restore = useMutation((d: Deleted) => restoreVersion(d.kind.plural, project, d.name, d.version), {
    onSuccess: async (r, d) => {
      setRestored({ ...r, plural: d.kind.plural });
      await queryClient.invalidateQueries(['deleted']);
      await queryClient.invalidateQueries(['list']);
    },
  });
  const history = (d: Deleted) =>
    project ? `/projects/${enc(project)}/${d.kind.plural}/${enc(d.name)}/history` : `/global/${d.kind.plural}/${enc(d.name)}/history`;
  const items = deleted.data ?? [];
  return (
    <Box>
      {restored && (
        <Alert severity="success" sx={{ mb: 1 }} onClose={() => setRestored(undefined)} data-testid="undeleted">
          Restored {restored.kind} “{displayName(restored)}” as version {restored.metadata.version}.{' '}
          <Link component={RouterLink} to={pageOf(restored.plural, restored)}>
            Open it
          </Link>
        </Alert>
      )}
      {restore.error !== null && <ErrorMessage error={restore.error} />}
      <ListBody query={deleted} empty={items.length > 0 ? undefined : `Nothing deleted${project ? ' in this project' : ''} is kept.`}>
        <Table size="small" aria-label="recently deleted">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Kind</TableCell>
              <TableCell>Last version</TableCell>
              <TableCell>Saved</TableCell>
              <TableCell>By</TableCell>
              <TableCell>Through</TableCell>
              <TableCell align="right">
                <VisuallyHidden>Actions</VisuallyHidden>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((d) => (
              <TableRow key={`${d.kind.kind}/${d.name}`} data-testid="deleted-row" data-name={d.name}>
                <TableCell>
                  {d.title ?? d.name}
                  {d.title && d.title !== d.name && (
                    <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                      {d.name}
                    </Typography>
                  )}
                </TableCell>
                <TableCell>{d.kind.kind}</TableCell>
                <TableCell>{d.version}</TableCell>
                <TableCell title={d.updatedAt}>{timeAgo(d.updatedAt)}</TableCell>
                <TableCell>{d.updatedBy}</TableCell>
                <TableCell>{d.manager}</TableCell>
                <TableCell align="right">
                  <Button size="small" component={RouterLink} to={history(d)}>
                    History
                  </Button>
                  {can('create', d.kind.kind, project) && (
                    <Button
                      size="small"
                      disabled={restore.isLoading}
                      onClick={() => restore.mutate(d)}
                      aria-label={`Restore ${d.title ?? d.name}`}
                    >
                      Restore
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </ListBody>
    </Box>
  );
}
