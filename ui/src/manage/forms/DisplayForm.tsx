import { MenuItem, Stack } from '@mui/material';
import { Field, specOf, withSpec, type FormProps } from './common';

const DURATIONS = ['5m', '15m', '30m', '1h', '6h', '12h', '24h', '7d'];

/** Projects, folders and dashboards: a display name (and a description); a dashboard's time range; an ephemeral one's ttl. */
export function DisplayForm({ value, onChange, kind }: FormProps) {
  const spec = specOf<{ display?: { name?: string; description?: string }; duration?: string; ttl?: string }>(value);
  const set = (patch: Record<string, unknown>) => onChange(withSpec(value, { ...spec, ...patch }));
  const setDisplay = (patch: Record<string, string>) => set({ display: { ...spec.display, ...patch } });
  return (
    <Stack spacing={2}>
      <Field
        label="Display name"
        value={spec.display?.name}
        onChange={(v) => setDisplay({ name: v })}
        helperText="Any title; the name above stays the identifier in URLs."
      />
      {kind.kind === 'Project' && (
        <Field label="Description" value={spec.display?.description} onChange={(v) => setDisplay({ description: v })} />
      )}
      {spec.duration !== undefined && (
        <Field select label="Default time range" value={spec.duration} onChange={(v) => set({ duration: v })}>
          {DURATIONS.map((d) => (
            <MenuItem key={d} value={d}>
              last {d}
            </MenuItem>
          ))}
        </Field>
      )}
      {spec.ttl !== undefined && (
        <Field
          label="Expires after (ttl)"
          value={spec.ttl}
          onChange={(v) => set({ ttl: v })}
          helperText="A duration such as 2h or 7d, counted from the last update."
        />
      )}
    </Stack>
  );
}
