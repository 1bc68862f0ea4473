import { Box, Button, Stack, Tab, Tabs } from '@mui/material';
import { DeleteDialog, RenameDialog } from '../manage/lazy-dialogs';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link as RouterLink, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { displayName, getResource, list, type Resource } from '../api';
import { DeletedList } from '../manage/DeletedList';
import { FolderTree } from '../manage/FolderTree';
import { listedDashboards, whereIs } from '../manage/folders';
import { KINDS, kindByPlural } from '../kinds';
import { ResourceTable } from '../manage/ResourceTable';
import { useRefreshLists } from '../manage/RowActions';
import { useCan } from '../permissions';
import { StarButton } from '../StarButton';
import { ErrorMessage, PageHeader, SearchField } from '../widgets';

/** The kinds shown as tabs (folders are shown as a tree on the dashboards tab). */
const TABS = KINDS.filter((k) => k.scope === 'project' && k.kind !== 'Folder' && !k.elsewhere);

/**
 * A project: a tab per kind the user may read, each searchable, with create, edit, rename,
 * duplicate, move, history and delete where the user may; the dashboards tab shows the folders
 * as a tree. The project itself can be renamed and deleted from here.
 */
export function ProjectPage() {
  const { project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const { can, ready } = useCan();
  const navigate = useNavigate();
  const refresh = useRefreshLists();
  const queryClient = useQueryClient();
  const tabs = TABS.filter((t) => can('read', t.kind, project));
  const historyKinds = KINDS.filter((k) => k.scope === 'project' && k.history && can('read', k.kind, project));
  const showDeleted = params.get('tab') === 'deleted' && historyKinds.length > 0;
  const tab = showDeleted ? undefined : (tabs.find((t) => t.plural === params.get('tab')) ?? tabs[0]);
  const query = params.get('q') ?? '';
  const projectQuery = useQuery(['resource', 'projects', '', project], () => getResource('projects', undefined, project));
  const folders = useQuery(['list', 'folders', project], () => list('folders', project), {
    enabled: tab?.plural === 'dashboards' && can('read', 'Folder', project),
  });
  const dashboards = useQuery(['list', 'dashboards', project], () => list('dashboards', project), {
    enabled: tab?.plural === 'dashboards',
  });
  const [dialog, setDialog] = useState<'rename' | 'delete'>();
  const title = projectQuery.data?.object;
  const projectKind = kindByPlural('projects');

  const setQuery = (q: string) => {
    const next = new URLSearchParams(params);
    if (q) next.set('q', q);
    else next.delete('q');
    setParams(next, { replace: true });
  };
  const setTab = (plural: string) => setParams(new URLSearchParams({ tab: plural, ...(query ? { q: query } : {}) }));

  if (projectQuery.error) return <ErrorMessage error={projectQuery.error} />;
  const folderList = folders.data ?? [];
  const listed = listedDashboards(folderList);

  return (
    <Box>
      <PageHeader
        crumbs={[{ label: title ? displayName(title) : project }]}
        actions={
          <Stack direction="row" spacing={1} alignItems="center">
            <StarButton target={{ kind: 'Project', name: project }} />
            {title && can('update', 'Project', project) && (
              <Button size="small" onClick={() => setDialog('rename')}>
                Rename project
              </Button>
            )}
            {title && can('delete', 'Project', project) && (
              <Button size="small" color="error" onClick={() => setDialog('delete')}>
                Delete project
              </Button>
            )}
            {can('create', 'Dashboard', project) && (
              <Button size="small" component={RouterLink} to={`/projects/${encodeURIComponent(project)}/import`}>
                Import
              </Button>
            )}
            {tab && <SearchField label={`Search ${tab.labelPlural}`} value={query} onChange={setQuery} />}
          </Stack>
        }
      />
      {ready && (tab || showDeleted) && (
        <>
          <Tabs
            value={tab?.plural ?? 'deleted'}
            onChange={(_e, v: string) => setTab(v)}
            sx={{ px: 3, borderBottom: 1, borderColor: 'divider' }}
            variant="scrollable"
          >
            {tabs.map((t) => (
              <Tab key={t.plural} value={t.plural} label={t.labelPlural[0].toUpperCase() + t.labelPlural.slice(1)} />
            ))}
            {historyKinds.length > 0 && <Tab value="deleted" label="Recently deleted" />}
          </Tabs>
          {showDeleted && (
            <Box sx={{ px: 3, pt: 2 }}>
              <DeletedList kinds={historyKinds} project={project} />
            </Box>
          )}
          {tab && (
            <Box sx={{ px: 3, pt: 2 }}>
              {tab.plural === 'dashboards' && can('read', 'Folder', project) && (
                <FolderTree project={project} folders={folderList} dashboards={dashboards.data ?? []} />
              )}
              <ResourceTable
                key={tab.plural}
                kind={tab}
                project={project}
                query={query}
                {...(tab.plural === 'dashboards'
                  ? {
                      folders: folderList,
                      extra: {
                        label: 'Folder',
                        cell: (r: Resource) =>
                          listed.has(r.metadata.name)
                            ? whereIs(folderList, r.metadata.name)
                                .map((w) => w.label)
                                .join(', ')
                            : '',
                      },
                    }
                  : {})}
              />
            </Box>
          )}
        </>
      )}
      {title && dialog === 'rename' && (
        <RenameDialog
          kind={projectKind}
          resource={title}
          open
          onClose={() => setDialog(undefined)}
          onSaved={() => {
            setDialog(undefined);
            void projectQuery.refetch();
            void refresh();
          }}
        />
      )}
      {title && dialog === 'delete' && (
        <DeleteDialog
          kind={projectKind}
          resource={title}
          open
          onClose={() => setDialog(undefined)}
          onDeleted={() => {
            // the project's own lists would answer 400 now (a list under a project that does not
            // exist): drop them rather than refetch them, then refresh the others
            queryClient.removeQueries({ predicate: (q) => q.queryKey[0] === 'list' && q.queryKey[2] === project });
            navigate('/', { replace: true });
            void refresh();
          }}
        />
      )}
    </Box>
  );
}
