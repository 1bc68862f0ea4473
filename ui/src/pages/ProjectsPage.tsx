import { Box, Button, Link, Table, TableBody, TableCell, TableHead, TableRow } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { displayName, list } from '../api';
import { ListBody, matches, PageHeader, SearchField, timeAgo } from '../widgets';

export function ProjectsPage() {
  const projects = useQuery(['list', 'projects'], () => list('projects'));
  const [query, setQuery] = useState('');
  const shown = (projects.data ?? []).filter((p) => matches(query, [p.metadata.name, displayName(p), ...(p.metadata.tags ?? [])]));
  return (
    <Box>
      <PageHeader
        crumbs={[]}
        actions={
          <>
            <SearchField label="Search projects" value={query} onChange={setQuery} />
            <Button variant="outlined" component={RouterLink} to="/import">
              Import a dashboard
            </Button>
          </>
        }
      />
      <Box sx={{ px: 3 }}>
        <ListBody query={projects} empty={shown.length > 0 ? undefined : query ? `No project matches "${query}".` : 'No projects yet. Create one with dashctl apply or POST /api/v1/projects.'}>
          <Table size="small" aria-label="projects">
            <TableHead>
              <TableRow>
                <TableCell>Project</TableCell>
                <TableCell>Name</TableCell>
                <TableCell>Updated</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {shown.map((p) => (
                <TableRow key={p.metadata.name} hover data-testid="project-row">
                  <TableCell>
                    <Link component={RouterLink} to={`/projects/${encodeURIComponent(p.metadata.name)}`}>
                      {displayName(p)}
                    </Link>
                  </TableCell>
                  <TableCell>{p.metadata.name}</TableCell>
                  <TableCell title={p.metadata.updatedAt}>{timeAgo(p.metadata.updatedAt)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </ListBody>
      </Box>
    </Box>
  );
}
