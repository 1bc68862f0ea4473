import {
  Autocomplete,
  Box,
  Button,
  Checkbox,
  FormControlLabel,
  FormGroup,
  IconButton,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import DeleteOutline from 'mdi-material-ui/DeleteOutline';
import Plus from 'mdi-material-ui/Plus';
import { ALL_KIND_NAMES, PROJECT_KIND_NAMES } from '../../kinds';
import { autocompleteInput, specOf, withSpec, type FormProps } from './common';

interface Permission {
  actions: string[];
  scopes: string[];
}

const ACTIONS = ['create', 'read', 'update', 'delete', '*'];

/** A role: rows of actions on kinds. A project role grants only project kinds (and Project itself). */
export function RoleForm({ value, onChange, kind }: FormProps) {
  const perms = specOf<{ permissions?: Permission[] }>(value).permissions ?? [];
  const scopes = ['*', ...(kind.scope === 'project' ? PROJECT_KIND_NAMES : ALL_KIND_NAMES)];
  const set = (next: Permission[]) => onChange(withSpec(value, { ...specOf<Record<string, unknown>>(value), permissions: next }));
  const setRow = (i: number, p: Permission) => set(perms.map((x, j) => (j === i ? p : x)));
  return (
    <Stack spacing={1.5}>
      <Typography variant="body2" color="text.secondary">
        Each row grants its actions on its kinds{kind.scope === 'project' ? ' inside this project' : ' in every project and globally'}. “*”
        means all.
      </Typography>
      {perms.map((p, i) => (
        <Paper key={i} variant="outlined" sx={{ p: 1.5 }} data-testid="permission-row">
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
            <Box sx={{ flexGrow: 1 }}>
              <FormGroup row aria-label={`actions of permission ${i + 1}`}>
                {ACTIONS.map((a) => (
                  <FormControlLabel
                    key={a}
                    label={a === '*' ? 'all' : a}
                    control={
                      <Checkbox
                        size="small"
                        checked={p.actions.includes(a)}
                        onChange={(e) =>
                          setRow(i, { ...p, actions: e.target.checked ? [...p.actions, a] : p.actions.filter((x) => x !== a) })
                        }
                      />
                    }
                  />
                ))}
              </FormGroup>
              <Autocomplete
                multiple
                size="small"
                options={scopes}
                value={p.scopes}
                onChange={(_e, v) => setRow(i, { ...p, scopes: v })}
                renderInput={(params) => <TextField {...autocompleteInput(params)} label={`Kinds of permission ${i + 1}`} />}
              />
            </Box>
            <IconButton aria-label={`Remove permission ${i + 1}`} onClick={() => set(perms.filter((_x, j) => j !== i))}>
              <DeleteOutline />
            </IconButton>
          </Box>
        </Paper>
      ))}
      <Box>
        <Button size="small" startIcon={<Plus />} onClick={() => set([...perms, { actions: ['read'], scopes: [] }])}>
          Add permission
        </Button>
      </Box>
    </Stack>
  );
}
