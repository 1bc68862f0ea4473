import {
  Alert,
  Box,
  Button,
  MenuItem,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { AUDIT_ACTIONS } from '../../../src/lib/audit-actions.js';
import { call, enc, getJson, type Resource } from '../api';
import { ListBody, PageHeader, timeAgo } from '../widgets';
import { useCan, useSession } from '../permissions';

// Teams, robots and the audit trail (issue 20): groups, service accounts, the caller's API
// tokens (created with a one-time display of the secret, revoked) and the audit log with filters.
// Each part shows what the caller may read; a 403 shows as a message in its own section.

interface TokenInfo {
  id: string;
  name: string;
  owner: { kind: string; name: string; project?: string };
  expiresAt: string;
  lastUsedAt?: string;
  createdAt: string;
  permissions?: unknown[];
}

type AuditEntry = Record<string, string | number | undefined> & { id: number; time: string; action: string; user: string };

/** The audit filter's choices: any action, or one of them. */
const ACTIONS = ['', ...AUDIT_ACTIONS];

export function AccessPage() {
  return (
    <Box sx={{ pb: 4 }}>
      <PageHeader crumbs={[{ label: 'Teams, tokens and audit' }]} />
      <Box sx={{ px: 3, display: 'flex', flexDirection: 'column', gap: 3 }}>
        <Section title="Groups">
          <Groups />
        </Section>
        <Section title="Service accounts">
          <ServiceAccounts />
        </Section>
        <Section title="My API tokens">
          <Tokens />
        </Section>
        <Section title="Audit log">
          <Audit />
        </Section>
      </Box>
    </Box>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label={title}>
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

function Groups() {
  const { can, ready } = useCan();
  // a user who may not read groups is not sent to ask (the answer would be 403)
  const q = useQuery(['groups'], () => getJson<Resource<{ members: string[] }>[]>('/api/v1/groups'), {
    retry: false,
    enabled: ready && can('read', 'Group'),
  });
  if (ready && !can('read', 'Group'))
    return <Typography color="text.secondary">Your permissions do not include reading groups.</Typography>;
  return (
    <ListBody query={q} empty={q.data?.length === 0 ? 'No groups.' : undefined}>
      <Table size="small" aria-label="groups">
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            <TableCell>Members</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {(q.data ?? []).map((g) => (
            <TableRow key={g.metadata.name}>
              <TableCell>{g.metadata.name}</TableCell>
              <TableCell>{g.spec.members.join(', ')}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </ListBody>
  );
}

function ServiceAccounts() {
  const { can, ready } = useCan();
  const readGlobal = can('read', 'GlobalServiceAccount');
  const q = useQuery(
    ['serviceaccounts', readGlobal],
    async () => {
      // global ones only for a user who may read them (the answer would be 403)
      const [global, project] = await Promise.allSettled([
        readGlobal ? getJson<Resource[]>('/api/v1/globalserviceaccounts') : Promise.resolve([]),
        getJson<Resource[]>('/api/v1/serviceaccounts'),
      ]);
      const ok = [global, project].filter((r): r is PromiseFulfilledResult<Resource[]> => r.status === 'fulfilled');
      if (!ok.length) throw (global as PromiseRejectedResult).reason;
      return ok.flatMap((r) => r.value);
    },
    { retry: false, enabled: ready },
  );
  return (
    <ListBody query={q} empty={q.data?.length === 0 ? 'No service accounts you may see.' : undefined}>
      <Table size="small" aria-label="service accounts">
        <TableHead>
          <TableRow>
            <TableCell>Kind</TableCell>
            <TableCell>Project</TableCell>
            <TableCell>Name</TableCell>
            <TableCell>Created</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {(q.data ?? []).map((s) => (
            <TableRow key={`${s.kind}/${s.metadata.project ?? ''}/${s.metadata.name}`}>
              <TableCell>{s.kind}</TableCell>
              <TableCell>{s.metadata.project ?? '-'}</TableCell>
              <TableCell>{s.metadata.name}</TableCell>
              <TableCell>{timeAgo(s.metadata.createdAt)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </ListBody>
  );
}

function Tokens() {
  const { authOn } = useSession();
  if (!authOn) {
    // personal tokens belong to a signed-in user: with authentication off there is none
    return (
      <Typography color="text.secondary">Authentication is off on this server: there are no users, so no personal API tokens.</Typography>
    );
  }
  return <TokenList />;
}

function TokenList() {
  const queryClient = useQueryClient();
  const q = useQuery(['tokens'], () => getJson<TokenInfo[]>('/api/v1/user/tokens'), { retry: false });
  const [name, setName] = useState('');
  const [ttl, setTtl] = useState('30d');
  const [created, setCreated] = useState<string>();
  const creating = useMutation(
    async (o: { name: string; ttl: string }) =>
      (await (await call('POST', '/api/v1/user/tokens', o)).json()) as TokenInfo & { token: string },
    {
      onSuccess: async (res) => {
        setCreated(res.token);
        setName('');
        await queryClient.invalidateQueries(['tokens']);
      },
    },
  );
  const revoking = useMutation(
    async (id: string) => {
      await call('DELETE', `/api/v1/user/tokens/${enc(id)}`);
    },
    { onSuccess: () => queryClient.invalidateQueries(['tokens']) },
  );
  // one message at a time: starting either call drops the other's error (the new token stays shown)
  const create = () => {
    revoking.reset();
    creating.mutate({ name, ttl });
  };
  const revoke = (id: string) => {
    creating.reset();
    revoking.mutate(id);
  };
  const error = ((creating.error ?? revoking.error) as Error | null)?.message;
  // either call turns every button off until it is done (a reset of the other would turn its own back on)
  const busy = creating.isLoading || revoking.isLoading;
  return (
    <>
      <Box sx={{ display: 'flex', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        <TextField size="small" label="Token name" value={name} onChange={(e) => setName(e.target.value)} />
        <TextField size="small" label="Expires in" value={ttl} onChange={(e) => setTtl(e.target.value)} helperText="e.g. 30d, 12h" />
        <Button variant="contained" onClick={create} disabled={busy || !name}>
          Create token
        </Button>
      </Box>
      {created && (
        <Alert severity="success" onClose={() => setCreated(undefined)} sx={{ mb: 1 }} data-testid="new-token">
          Copy this token now, it is not shown again: <code>{created}</code>
        </Alert>
      )}
      {error && (
        <Alert severity="error" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <ListBody query={q} empty={q.data?.length === 0 ? 'No tokens.' : undefined}>
        <Table size="small" aria-label="tokens">
          <TableHead>
            <TableRow>
              <TableCell>Name</TableCell>
              <TableCell>Id</TableCell>
              <TableCell>Expires</TableCell>
              <TableCell>Last used</TableCell>
              <TableCell>Narrowed</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {(q.data ?? []).map((t) => (
              <TableRow key={t.id}>
                <TableCell>{t.name}</TableCell>
                <TableCell>
                  <code>{t.id}</code>
                </TableCell>
                <TableCell>{new Date(t.expiresAt).toLocaleString()}</TableCell>
                <TableCell>{t.lastUsedAt ? timeAgo(t.lastUsedAt) : 'never'}</TableCell>
                <TableCell>{t.permissions ? 'yes' : 'no'}</TableCell>
                <TableCell>
                  <Button size="small" color="error" disabled={busy} onClick={() => revoke(t.id)}>
                    Revoke
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </ListBody>
    </>
  );
}

function Audit() {
  const [filters, setFilters] = useState({ user: '', kind: '', project: '', action: '' });
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== '')).toString();
  const q = useQuery(['audit', query], () => getJson<AuditEntry[]>(`/api/v1/audit?limit=200${query ? `&${query}` : ''}`), { retry: false });
  const field = (key: keyof typeof filters, label: string) => (
    <TextField size="small" label={label} value={filters[key]} onChange={(e) => setFilters({ ...filters, [key]: e.target.value })} />
  );
  return (
    <>
      <Box sx={{ display: 'flex', gap: 1, mb: 1, flexWrap: 'wrap' }}>
        {field('user', 'User')}
        {field('kind', 'Kind')}
        {field('project', 'Project')}
        <TextField
          select
          size="small"
          label="Action"
          value={filters.action}
          onChange={(e) => setFilters({ ...filters, action: e.target.value })}
          sx={{ minWidth: 160 }}
        >
          {ACTIONS.map((a) => (
            <MenuItem key={a} value={a}>
              {a || 'any'}
            </MenuItem>
          ))}
        </TextField>
      </Box>
      <ListBody query={q} empty={q.data?.length === 0 ? 'No entries.' : undefined}>
        <Table size="small" aria-label="audit log">
          <TableHead>
            <TableRow>
              <TableCell>Time</TableCell>
              <TableCell>User</TableCell>
              <TableCell>Action</TableCell>
              <TableCell>Object</TableCell>
              <TableCell>Version</TableCell>
              <TableCell>Through</TableCell>
              <TableCell>Source</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {(q.data ?? []).map((e) => (
              <TableRow key={e.id}>
                <TableCell>{new Date(e.time).toLocaleString()}</TableCell>
                <TableCell>{e.user}</TableCell>
                <TableCell>
                  {e.action === 'denied' ? `denied ${e.deniedAction}` : e.action}
                  {e.count !== undefined ? ` ×${e.count}` : ''}
                </TableCell>
                <TableCell>{[e.kind, e.project, e.name].filter((x) => x !== undefined).join('/') || '-'}</TableCell>
                <TableCell>
                  {e.versionBefore !== undefined || e.versionAfter !== undefined ? `${e.versionBefore ?? ''}→${e.versionAfter ?? ''}` : '-'}
                </TableCell>
                <TableCell>{e.manager ?? e.provider ?? '-'}</TableCell>
                <TableCell>{e.source ?? '-'}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </ListBody>
    </>
  );
}
