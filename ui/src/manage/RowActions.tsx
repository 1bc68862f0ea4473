import { IconButton, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import { DeleteDialog, DuplicateDialog, FormDialog, MoveDialog, RenameDialog } from './lazy-dialogs';
import { useQueryClient } from '@tanstack/react-query';
import ContentCopy from 'mdi-material-ui/ContentCopy';
import DeleteOutline from 'mdi-material-ui/DeleteOutline';
import DotsVertical from 'mdi-material-ui/DotsVertical';
import FolderMove from 'mdi-material-ui/FolderMove';
import History from 'mdi-material-ui/History';
import CodeBraces from 'mdi-material-ui/CodeBraces';
import Pencil from 'mdi-material-ui/Pencil';
import RenameBox from 'mdi-material-ui/RenameBox';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Resource } from '../api';
import { pageOf } from '../links';
import { useCan } from '../permissions';
import { whereIs, withoutDashboard, type FolderSpec } from './folders';
import { putResource } from '../api';
import type { KindUi } from '../kinds';

type Open = 'edit' | 'rename' | 'duplicate' | 'move' | 'delete' | undefined;

const enc = encodeURIComponent;

/** The path of an object's editor (JSON/YAML) and history pages. */
export function basePath(k: KindUi, r: Resource): string {
  return r.metadata.project
    ? `/projects/${enc(r.metadata.project)}/${k.plural}/${enc(r.metadata.name)}`
    : `/global/${k.plural}/${enc(r.metadata.name)}`;
}

/** Invalidates every cached list, so pages show a change at once. */
export function useRefreshLists() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries(['list']);
}

/**
 * The ⋮ menu of one object: only what the user may do. Edit (form), rename, duplicate, move to
 * a folder (dashboards, when `folders` is given), history, edit as JSON/YAML, delete.
 */
export function RowActions({
  kind,
  resource,
  folders,
  onDeleted,
}: {
  kind: KindUi;
  resource: Resource;
  folders?: Resource[] | undefined;
  onDeleted?(): void;
}) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [open, setOpen] = useState<Open>();
  // the object as it was when a dialog opened: a list refresh meanwhile must not reset the dialog
  const [snapshot, setSnapshot] = useState(resource);
  const { can } = useCan();
  const navigate = useNavigate();
  const refresh = useRefreshLists();
  const project = resource.metadata.project;
  const name = resource.metadata.name;
  const own = kind.kind === 'Project' ? name : project;
  const mayUpdate = can('update', kind.kind, own, name);
  const mayDelete = can('delete', kind.kind, own, name);
  const mayCreate = can('create', kind.kind, project);
  const mayMove = folders !== undefined && folders.length > 0 && can('update', 'Folder', project);
  const show = (o: Open) => () => {
    setAnchor(null);
    setSnapshot(resource);
    setOpen(o);
  };
  const done = () => {
    setOpen(undefined);
    void refresh();
  };
  const items = [
    mayUpdate &&
      !kind.view && {
        key: 'edit',
        label: kind.kind === 'User' ? 'Edit or reset password' : 'Edit',
        icon: <Pencil />,
        onClick: show('edit'),
      },
    mayUpdate && kind.displayPath && { key: 'rename', label: 'Rename', icon: <RenameBox />, onClick: show('rename') },
    mayCreate && kind.duplicable && { key: 'duplicate', label: 'Duplicate', icon: <ContentCopy />, onClick: show('duplicate') },
    mayMove && { key: 'move', label: 'Move to folder', icon: <FolderMove />, onClick: show('move') },
    kind.history && { key: 'history', label: 'History', icon: <History />, onClick: () => navigate(`${basePath(kind, resource)}/history`) },
    {
      key: 'yaml',
      label: mayUpdate ? 'Edit JSON/YAML' : 'View JSON/YAML',
      icon: <CodeBraces />,
      onClick: () => navigate(`${basePath(kind, resource)}/edit`),
    },
    mayDelete && { key: 'delete', label: 'Delete', icon: <DeleteOutline />, onClick: show('delete') },
  ].filter(Boolean) as { key: string; label: string; icon: JSX.Element; onClick(): void }[];

  // a deleted dashboard leaves its folders too
  const leaveFolders = async () => {
    for (const f of folders ?? []) {
      if (whereIs([f], name).length === 0) continue;
      await putResource(
        'folders',
        project,
        f.metadata.name,
        { ...f, spec: withoutDashboard(f.spec as FolderSpec, name) },
        `"${f.metadata.version}"`,
      );
    }
  };

  return (
    <>
      <IconButton size="small" aria-label={`Actions for ${name}`} aria-haspopup="menu" onClick={(e) => setAnchor(e.currentTarget)}>
        <DotsVertical />
      </IconButton>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {items.map((i) => (
          <MenuItem key={i.key} onClick={i.onClick}>
            <ListItemIcon>{i.icon}</ListItemIcon>
            <ListItemText>{i.label}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
      {open === 'edit' && (
        <FormDialog
          kind={kind}
          project={project}
          initial={snapshot}
          open
          onClose={() => setOpen(undefined)}
          onSaved={done}
          onChanged={() => void refresh()}
        />
      )}
      {open === 'rename' && <RenameDialog kind={kind} resource={snapshot} open onClose={() => setOpen(undefined)} onSaved={done} />}
      {open === 'duplicate' && (
        <DuplicateDialog
          kind={kind}
          resource={resource}
          open
          onClose={() => setOpen(undefined)}
          onCreated={(r) => {
            done();
            if (kind.view) navigate(pageOf(kind.plural, r));
          }}
        />
      )}
      {open === 'move' && folders && (
        <MoveDialog dashboard={resource} folders={folders} open onClose={() => setOpen(undefined)} onMoved={done} />
      )}
      {open === 'delete' && (
        <DeleteDialog
          kind={kind}
          resource={resource}
          open
          onClose={() => setOpen(undefined)}
          onDeleted={() => {
            done();
            onDeleted?.();
          }}
          before={folders ? leaveFolders : undefined}
        />
      )}
    </>
  );
}
