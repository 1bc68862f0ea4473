import { Box, Button, Card, CardContent, Link, List, ListItem, ListItemText, Paper, Typography } from '@mui/material';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { objectPath } from '../links';
import { kindByPlural } from '../kinds';
import { ResourceTable } from '../manage/ResourceTable';
import { useProfile } from '../profile';
import type { ObjectRef } from '../profile-api';
import { SearchBox } from '../search/SearchBox';
import { searchShortcutLabel } from '../search/SearchDialog';
import { ListBody, PageHeader, SearchField, timeAgo } from '../widgets';

/** Home: search everything, the user's starred and recently viewed objects, and every project. */
export function HomePage() {
  const profile = useProfile();
  const [query, setQuery] = useState('');
  return (
    <Box sx={{ pb: 4 }}>
      <PageHeader crumbs={[]} />
      <Box sx={{ px: 3, display: 'flex', flexDirection: 'column', gap: 3 }}>
        <Paper variant="outlined" sx={{ p: 2 }}>
          <SearchBox />
          <Typography variant="caption" color="text.secondary">
            {searchShortcutLabel()} searches from any page.
          </Typography>
        </Paper>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <RefList
            title="Starred"
            testid="starred"
            refs={profile.data?.starred}
            query={profile}
            empty="Nothing starred yet: the ☆ on a dashboard puts it here."
          />
          <RefList
            title="Recently viewed"
            testid="recent"
            refs={profile.data?.recent}
            query={profile}
            empty="Dashboards you open appear here."
          />
        </Box>
        <Box>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1, flexWrap: 'wrap' }}>
            <Typography variant="h2" sx={{ flexGrow: 1 }}>
              Projects
            </Typography>
            <Button variant="outlined" size="small" component={RouterLink} to="/import">
              Import a dashboard
            </Button>
            <SearchField label="Search projects" value={query} onChange={setQuery} />
          </Box>
          <ResourceTable kind={kindByPlural('projects')} query={query} />
        </Box>
      </Box>
    </Box>
  );
}

function RefList({
  title,
  refs,
  query,
  empty,
  testid,
}: {
  title: string;
  refs?: ObjectRef[] | undefined;
  query: { isLoading: boolean; error: unknown };
  empty: string;
  testid: string;
}) {
  return (
    <Card variant="outlined" sx={{ height: '100%' }}>
      <CardContent>
        <Typography variant="h3" component="h2" gutterBottom>
          {title}
        </Typography>
        <ListBody query={query} empty={refs && refs.length > 0 ? undefined : empty}>
          <List dense disablePadding aria-label={title} data-testid={testid}>
            {(refs ?? []).map((r) => (
              <ListItem key={`${r.kind}/${r.project ?? ''}/${r.name}`} disableGutters data-testid={`${testid}-item`}>
                <ListItemText
                  primary={
                    <Link component={RouterLink} to={objectPath({ ...r, plural: r.plural ?? '' })}>
                      {r.title ?? r.name}
                    </Link>
                  }
                  secondary={`${r.project ? `${r.project} · ` : ''}${r.kind}${r.at ? ` · ${timeAgo(r.at)}` : ''}`}
                />
              </ListItem>
            ))}
          </List>
        </ListBody>
      </CardContent>
    </Card>
  );
}
