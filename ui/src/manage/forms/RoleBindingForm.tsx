import { Autocomplete, MenuItem, Stack, TextField } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { list } from '../../api';
import { useCan } from '../../permissions';
import { autocompleteInput, Field, specOf, withSpec, type FormProps } from './common';

interface BindingSpec {
  role?: string;
  subjects?: { kind: string; name: string }[];
}

/** A binding: one role (of the same scope) and the users it is granted to. Its role cannot change later. */
export function RoleBindingForm({ value, onChange, kind, isNew, project }: FormProps) {
  const spec = specOf<BindingSpec>(value);
  const { can } = useCan();
  const rolePlural = kind.scope === 'project' ? 'roles' : 'globalroles';
  const roleKind = kind.scope === 'project' ? 'Role' : 'GlobalRole';
  const roles = useQuery(['list', rolePlural, project ?? ''], () => list(rolePlural, project), { enabled: can('read', roleKind, project) });
  const users = useQuery(['list', 'users', ''], () => list('users'), { enabled: can('read', 'User') });
  const set = (patch: BindingSpec) => onChange(withSpec(value, { ...spec, ...patch }));
  const names = (spec.subjects ?? []).map((s) => s.name);
  return (
    <Stack spacing={2}>
      {roles.data ? (
        <Field
          select
          label="Role"
          value={spec.role}
          onChange={(v) => set({ role: v })}
          disabled={!isNew}
          helperText={isNew ? undefined : 'The role of a binding cannot change: delete it and create another.'}
          required
        >
          {roles.data.map((r) => (
            <MenuItem key={r.metadata.name} value={r.metadata.name}>
              {r.metadata.name}
            </MenuItem>
          ))}
        </Field>
      ) : (
        <Field label="Role" value={spec.role} onChange={(v) => set({ role: v })} disabled={!isNew} required />
      )}
      <Autocomplete
        multiple
        freeSolo
        options={(users.data ?? []).map((u) => u.metadata.name)}
        value={names}
        onChange={(_e, v) => set({ subjects: v.map((name) => ({ kind: 'User', name })) })}
        renderInput={(params) => <TextField {...autocompleteInput(params)} label="Users" helperText="Type a user name and press Enter." />}
      />
    </Stack>
  );
}
