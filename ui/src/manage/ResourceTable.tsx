import { Box, Button, Chip, IconButton, Link, Table, TableBody, TableCell, TableHead, TableRow, Tooltip, Typography } from '@mui/material';
import { FormDialog } from './lazy-dialogs';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Play from 'mdi-material-ui/Play';
import Plus from 'mdi-material-ui/Plus';
import { type ReactNode, useState } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router-dom';
import { list, type Resource } from '../api';
import { pageOf } from '../links';
import { useCan } from '../permissions';
import { ListBody, matches, timeAgo, VisuallyHidden } from '../widgets';
import { titleOf, type KindUi } from '../kinds';
import { basePath, RowActions, useRefreshLists } from './RowActions';

export interface ResourceTableProps {
  kind: KindUi;
  project?: string;
  /** Filter: every word must match the name, title, tags or summary. */
  query?: string;
  /** Dashboards: the project's folders (for "Move to folder" and the Folder column). */
  folders?: Resource[];
  /** A column of extra text per row (e.g. the dashboard's folder). */
  extra?: { label: string; cell(r: Resource): ReactNode };
}

/** Asks the browser for full screen (a click is the user gesture it needs); a refusal leaves the page as it is. */
const fullScreen = () => void document.documentElement.requestFullscreen?.().catch(() => undefined);

/**
 * The objects of one kind (in a project, or global) with a "New" button and a ⋮ menu per row,
 * both showing only what the user may do. Dashboards open in view; other objects in their form.
 */
export function ResourceTable({ kind, project, query = '', folders, extra }: ResourceTableProps) {
  const { can, ready } = useCan();
  const navigate = useNavigate();
  const refresh = useRefreshLists();
  const queryClient = useQueryClient();
  const items = useQuery(['list', kind.plural, project ?? ''], () => list(kind.plural, project));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Resource>();
  const shown = (items.data ?? []).filter((r) =>
    matches(query, [
      r.metadata.name,
      titleOf(kind, r),
      ...(r.metadata.tags ?? []),
      kind.summary?.(r),
      ...(kind.columns ?? []).map((c) => c.cell(r)),
    ]),
  );
  const mayCreate = can('create', kind.kind, project);
  const mayUpdate = (r: Resource) => can('update', kind.kind, kind.kind === 'Project' ? r.metadata.name : project, r.metadata.name);

  return (
    <Box>
      {mayCreate && (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', mb: 1 }}>
          <Button variant="contained" size="small" startIcon={<Plus />} onClick={() => setCreating(true)}>
            New {kind.label}
          </Button>
        </Box>
      )}
      {/* the list shows once the permissions are known too: a "New" button appearing later would push it down */}
      <ListBody
        query={{ isLoading: items.isLoading || !ready, error: items.error }}
        empty={
          shown.length > 0
            ? undefined
            : query
              ? `Nothing matches "${query}".`
              : project
                ? `No ${kind.labelPlural} in this project.`
                : `No ${kind.labelPlural} yet.`
        }
      >
        <Table size="small" aria-label={kind.labelPlural}>
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              {kind.summary && <TableCell>{kind.plural.includes('datasource') ? 'Plugin' : 'Details'}</TableCell>}
              {kind.columns?.map((c) => (
                <TableCell key={c.label}>{c.label}</TableCell>
              ))}
              {extra && <TableCell>{extra.label}</TableCell>}
              <TableCell>Tags</TableCell>
              <TableCell>Version</TableCell>
              <TableCell>Updated</TableCell>
              <TableCell align="right">
                <VisuallyHidden>Actions</VisuallyHidden>
              </TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {shown.map((r) => {
              const title = titleOf(kind, r);
              return (
                <TableRow
                  key={r.metadata.name}
                  hover
                  data-testid={kind.plural === 'projects' ? 'project-row' : 'resource-row'}
                  data-name={r.metadata.name}
                >
                  <TableCell>
                    {kind.view || kind.kind === 'Project' ? (
                      <Link component={RouterLink} to={pageOf(kind.plural, r)}>
                        {title ?? r.metadata.name}
                      </Link>
                    ) : (
                      <Link
                        component="button"
                        type="button"
                        onClick={() => (mayUpdate(r) ? setEditing(r) : navigate(pageOf(kind.plural, r)))}
                        sx={{ textAlign: 'left' }}
                      >
                        {title ?? r.metadata.name}
                      </Link>
                    )}
                    {title && title !== r.metadata.name && (
                      <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                        {r.metadata.name}
                      </Typography>
                    )}
                  </TableCell>
                  {kind.summary && <TableCell>{kind.summary(r)}</TableCell>}
                  {kind.columns?.map((c) => (
                    <TableCell key={c.label}>{c.cell(r)}</TableCell>
                  ))}
                  {extra && <TableCell>{extra.cell(r)}</TableCell>}
                  <TableCell>
                    {(r.metadata.tags ?? []).map((t) => (
                      <Chip key={t} label={t} size="small" sx={{ mr: 0.5 }} />
                    ))}
                  </TableCell>
                  <TableCell>{r.metadata.version}</TableCell>
                  <TableCell title={r.metadata.updatedAt}>{timeAgo(r.metadata.updatedAt)}</TableCell>
                  <TableCell align="right">
                    {kind.playable && (
                      <Tooltip title="Play (full screen, kiosk mode)">
                        <IconButton
                          size="small"
                          component={RouterLink}
                          to={`${basePath(kind, r)}/play?kiosk`}
                          onClick={fullScreen}
                          aria-label={`Play ${r.metadata.name}`}
                        >
                          <Play />
                        </IconButton>
                      </Tooltip>
                    )}
                    <RowActions kind={kind} resource={r} folders={folders} />
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </ListBody>
      {creating && (
        <FormDialog
          kind={kind}
          project={project}
          open
          onClose={() => setCreating(false)}
          onChanged={() => void refresh()}
          onSaved={(saved) => {
            setCreating(false);
            void refresh();
            // creating a project makes its creator its owner
            void queryClient.invalidateQueries(['permissions']);
            // a new dashboard opens in Perses' edit mode, to add its first panel
            if (kind.view) navigate(`${pageOf(kind.plural, saved)}?edit=true`);
            else if (kind.kind === 'Project') navigate(pageOf(kind.plural, saved));
          }}
        />
      )}
      {editing && (
        <FormDialog
          kind={kind}
          project={project}
          initial={editing}
          open
          onClose={() => setEditing(undefined)}
          onChanged={() => void refresh()}
          onSaved={() => {
            setEditing(undefined);
            void refresh();
          }}
        />
      )}
    </Box>
  );
}
