import { Box, Button, Tab, Tabs, Typography } from '@mui/material';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { ADMIN_KINDS, KINDS } from '../kinds';
import { DeletedList } from '../manage/DeletedList';
import { ResourceTable } from '../manage/ResourceTable';
import { useCan } from '../permissions';
import { PageHeader, SearchField } from '../widgets';

/** The global kinds an administrator manages (Project has the home page). */
const ADMIN = KINDS.filter((k) => ADMIN_KINDS.includes(k.kind));

/**
 * Administration: global datasources, variables, secrets, roles, role bindings and users, each
 * with its forms; a tab per kind the user may read (the app bar shows the page only then).
 */
export function AdminPage() {
  const { can, ready } = useCan();
  const [params, setParams] = useSearchParams();
  const tabs = ADMIN.filter((k) => can('read', k.kind));
  const historyKinds = tabs.filter((k) => k.history);
  const showDeleted = params.get('tab') === 'deleted' && historyKinds.length > 0;
  const tab = showDeleted ? undefined : (tabs.find((t) => t.plural === params.get('tab')) ?? tabs[0]);
  const query = params.get('q') ?? '';
  const setQuery = (q: string) => {
    const next = new URLSearchParams(params);
    if (q) next.set('q', q);
    else next.delete('q');
    setParams(next, { replace: true });
  };
  return (
    <Box>
      <PageHeader
        crumbs={[{ label: 'Administration' }]}
        actions={
          <>
            <Button component={RouterLink} to="/admin/access" size="small">
              Groups, tokens and audit
            </Button>
            {tab && <SearchField label={`Search ${tab.labelPlural}`} value={query} onChange={setQuery} />}
          </>
        }
      />
      {ready && !tab && !showDeleted && (
        <Typography sx={{ px: 3 }} color="text.secondary">
          You may not manage any global object.
        </Typography>
      )}
      {(tab || showDeleted) && (
        <>
          <Tabs
            value={tab?.plural ?? 'deleted'}
            onChange={(_e, v: string) => setParams(new URLSearchParams({ tab: v }))}
            sx={{ px: 3, borderBottom: 1, borderColor: 'divider' }}
            variant="scrollable"
          >
            {tabs.map((t) => (
              <Tab key={t.plural} value={t.plural} label={t.labelPlural.replace(/^global /, '').replace(/^./, (c) => c.toUpperCase())} />
            ))}
            {historyKinds.length > 0 && <Tab value="deleted" label="Recently deleted" />}
          </Tabs>
          <Box sx={{ px: 3, pt: 2 }}>
            {tab ? <ResourceTable key={tab.plural} kind={tab} query={query} /> : <DeletedList kinds={historyKinds} />}
          </Box>
        </>
      )}
    </Box>
  );
}
