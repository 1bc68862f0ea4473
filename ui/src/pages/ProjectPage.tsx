import { Box, Button, Chip, Link, Tab, Table, TableBody, TableCell, TableHead, TableRow, Tabs, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink, useParams, useSearchParams } from 'react-router-dom';
import { displayName, getResource, list, type Resource } from '../api';
import { ListBody, matches, PageHeader, SearchField, timeAgo } from '../widgets';

const TABS = [
  { plural: 'dashboards', label: 'Dashboards', viewable: true },
  { plural: 'ephemeraldashboards', label: 'Ephemeral dashboards', viewable: true },
  { plural: 'datasources', label: 'Datasources', viewable: false },
  { plural: 'variables', label: 'Variables', viewable: false },
];

/** A project's dashboards, ephemeral dashboards, datasources and variables, searchable by name and tag. */
export function ProjectPage() {
  const { project = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((t) => t.plural === params.get('tab')) ?? TABS[0];
  const query = params.get('q') ?? '';
  const projectQuery = useQuery(['resource', 'projects', '', project], () => getResource('projects', undefined, project));
  const items = useQuery(['list', tab.plural, project], () => list(tab.plural, project));
  const title = projectQuery.data?.object;

  const setQuery = (q: string) => {
    const next = new URLSearchParams(params);
    if (q) next.set('q', q);
    else next.delete('q');
    setParams(next, { replace: true });
  };
  const setTab = (plural: string) => setParams(new URLSearchParams({ tab: plural, ...(query ? { q: query } : {}) }));

  const shown = (items.data ?? []).filter((r) => matches(query, [r.metadata.name, displayName(r), ...(r.metadata.tags ?? []), pluginKind(r)]));

  return (
    <Box>
      <PageHeader
        crumbs={[{ label: title ? displayName(title) : project }]}
        actions={
          <>
            <SearchField label={`Search ${tab.label.toLowerCase()}`} value={query} onChange={setQuery} />
            <Button variant="outlined" component={RouterLink} to={`/projects/${encodeURIComponent(project)}/import`}>
              Import
            </Button>
          </>
        }
      />
      <Tabs value={tab.plural} onChange={(_e, v: string) => setTab(v)} sx={{ px: 3, borderBottom: 1, borderColor: 'divider' }}>
        {TABS.map((t) => (
          <Tab key={t.plural} value={t.plural} label={t.label} />
        ))}
      </Tabs>
      <Box sx={{ px: 3, pt: 1 }}>
        <ListBody query={items} empty={shown.length > 0 ? undefined : query ? `Nothing matches "${query}".` : `No ${tab.label.toLowerCase()} in this project.`}>
          <Table size="small" aria-label={tab.label}>
            <TableHead>
              <TableRow>
                <TableCell>Name</TableCell>
                <TableCell>Tags</TableCell>
                {!tab.viewable && <TableCell>Plugin</TableCell>}
                <TableCell>Version</TableCell>
                <TableCell>Updated</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {shown.map((r) => {
                const base = `/projects/${encodeURIComponent(project)}/${tab.plural}/${encodeURIComponent(r.metadata.name)}`;
                return (
                  <TableRow key={r.metadata.name} hover data-testid="resource-row">
                    <TableCell>
                      <Link component={RouterLink} to={tab.viewable ? base : `${base}/edit`}>
                        {displayName(r)}
                      </Link>
                      {displayName(r) !== r.metadata.name && (
                        <Typography variant="caption" color="text.secondary" sx={{ ml: 1 }}>
                          {r.metadata.name}
                        </Typography>
                      )}
                      {(r.spec as { default?: boolean }).default && <Chip size="small" label="default" sx={{ ml: 1 }} />}
                    </TableCell>
                    <TableCell>
                      {(r.metadata.tags ?? []).map((t) => (
                        <Chip key={t} size="small" variant="outlined" label={t} sx={{ mr: 0.5 }} onClick={() => setQuery(t)} />
                      ))}
                    </TableCell>
                    {!tab.viewable && <TableCell>{pluginKind(r)}</TableCell>}
                    <TableCell>{r.metadata.version}</TableCell>
                    <TableCell title={r.metadata.updatedAt}>{timeAgo(r.metadata.updatedAt)}</TableCell>
                    <TableCell align="right">
                      {tab.viewable && tab.plural === 'dashboards' && (
                        <Button size="small" component={RouterLink} to={`${base}/history`}>
                          History
                        </Button>
                      )}
                      <Button size="small" component={RouterLink} to={`${base}/edit`}>
                        Edit
                      </Button>
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </ListBody>
      </Box>
    </Box>
  );
}

function pluginKind(r: Resource): string | undefined {
  return (r.spec as { plugin?: { kind?: string } }).plugin?.kind;
}
