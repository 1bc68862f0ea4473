import { Box, Button, Collapse, IconButton, Link, Paper, Typography } from '@mui/material';
import { FormDialog } from './lazy-dialogs';
import ChevronDown from 'mdi-material-ui/ChevronDown';
import ChevronRight from 'mdi-material-ui/ChevronRight';
import FolderIcon from 'mdi-material-ui/Folder';
import FolderOpen from 'mdi-material-ui/FolderOpen';
import Plus from 'mdi-material-ui/Plus';
import ViewDashboard from 'mdi-material-ui/ViewDashboard';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { displayName, type Resource } from '../api';
import { useCan } from '../permissions';
import type { FolderItem, FolderSpec } from './folders';
import { kindByPlural } from '../kinds';
import { RowActions, useRefreshLists } from './RowActions';

const enc = encodeURIComponent;

/**
 * A project's folders as a tree (as Perses 0.54 groups dashboards by folder): each Folder, its
 * sub-folders and dashboards; a dashboard opens from its leaf. Keyboard: Tab to a folder, Enter
 * or Space opens it.
 */
export function FolderTree({ project, folders, dashboards }: { project: string; folders: Resource[]; dashboards: Resource[] }) {
  const { can } = useCan();
  const refresh = useRefreshLists();
  const [creating, setCreating] = useState(false);
  const titles = new Map(dashboards.map((d) => [d.metadata.name, displayName(d)]));
  const folderKind = kindByPlural('folders');
  return (
    <Paper variant="outlined" sx={{ p: 1.5, mb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', mb: 0.5 }}>
        <Typography variant="h3" component="h2" sx={{ flexGrow: 1 }}>
          Folders
        </Typography>
        {can('create', 'Folder', project) && (
          <Button size="small" startIcon={<Plus />} onClick={() => setCreating(true)}>
            New folder
          </Button>
        )}
      </Box>
      {folders.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No folders yet. Create one, then move dashboards into it from their ⋮ menu.
        </Typography>
      ) : (
        <Box component="ul" role="tree" aria-label="folders" sx={{ listStyle: 'none', m: 0, p: 0 }} data-testid="folder-tree">
          {folders.map((f) => (
            <Node
              key={f.metadata.name}
              label={displayName(f)}
              items={(f.spec as FolderSpec).items ?? []}
              project={project}
              titles={titles}
              depth={0}
              actions={<RowActions kind={folderKind} resource={f} />}
            />
          ))}
        </Box>
      )}
      {creating && (
        <FormDialog
          kind={folderKind}
          project={project}
          open
          onClose={() => setCreating(false)}
          onSaved={() => {
            setCreating(false);
            void refresh();
          }}
        />
      )}
    </Paper>
  );
}

function Node({
  label,
  items,
  project,
  titles,
  depth,
  actions,
}: {
  label: string;
  items: FolderItem[];
  project: string;
  titles: Map<string, string>;
  depth: number;
  actions?: JSX.Element;
}) {
  const [open, setOpen] = useState(depth === 0);
  const count = items.length;
  return (
    <Box component="li" role="treeitem" aria-expanded={open} aria-label={label} data-testid="folder-node">
      <Box sx={{ display: 'flex', alignItems: 'center', pl: depth * 2 }}>
        <IconButton size="small" onClick={() => setOpen(!open)} aria-label={`${open ? 'Close' : 'Open'} folder ${label}`}>
          {open ? <ChevronDown /> : <ChevronRight />}
        </IconButton>
        {open ? <FolderOpen fontSize="small" color="action" /> : <FolderIcon fontSize="small" color="action" />}
        <Typography sx={{ ml: 1, flexGrow: 1, fontWeight: 500 }}>
          {label}{' '}
          <Typography component="span" variant="caption" color="text.secondary">
            ({count})
          </Typography>
        </Typography>
        {actions}
      </Box>
      <Collapse in={open} unmountOnExit>
        <Box component="ul" role="group" sx={{ listStyle: 'none', m: 0, p: 0 }}>
          {items.map((i, k) =>
            i.kind === 'Folder' ? (
              <Node key={`f-${i.name}-${k}`} label={i.name} items={i.items ?? []} project={project} titles={titles} depth={depth + 1} />
            ) : (
              <Box
                component="li"
                role="treeitem"
                key={`d-${i.name}-${k}`}
                sx={{ display: 'flex', alignItems: 'center', gap: 1, pl: depth * 2 + 5, py: 0.25 }}
                data-testid="folder-dashboard"
              >
                <ViewDashboard fontSize="small" color="action" />
                {titles.has(i.name) ? (
                  <Link component={RouterLink} to={`/projects/${enc(project)}/dashboards/${enc(i.name)}`}>
                    {titles.get(i.name)}
                  </Link>
                ) : (
                  <Typography variant="body2" color="text.secondary">
                    {i.name} (no such dashboard)
                  </Typography>
                )}
              </Box>
            ),
          )}
        </Box>
      </Collapse>
    </Box>
  );
}
