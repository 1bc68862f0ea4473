import { Autocomplete, Box, Button, IconButton, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import ArrowDown from 'mdi-material-ui/ArrowDown';
import ArrowUp from 'mdi-material-ui/ArrowUp';
import Close from 'mdi-material-ui/Close';
import { displayName, list } from '../../api';
import type { PlaylistItem, PlaylistSpec } from '../../playlists/queue';
import { autocompleteInput, Field, specOf, withSpec, type FormProps } from './common';

/** `dashboard ops/hosts`, `tag linux`: an item in words, for labels. */
const itemWords = (item: PlaylistItem) =>
  item.dashboard
    ? `dashboard ${item.dashboard.project ? `${item.dashboard.project}/` : ''}${item.dashboard.name}`
    : `tag ${item.tag ?? ''}`;

/**
 * A playlist: its title, the interval, and its items in order — a dashboard of the project, or
 * every dashboard of a tag — each moved up or down or removed. An item naming another project's
 * dashboard is shown as it is (edit it as YAML).
 */
export function PlaylistForm({ value, onChange, project }: FormProps) {
  const spec = specOf<PlaylistSpec>(value);
  const items = spec.items ?? [];
  const dashboards = useQuery(['list', 'dashboards', project ?? ''], () => list('dashboards', project), { enabled: !!project });
  const tags = [...new Set((dashboards.data ?? []).flatMap((d) => d.metadata.tags ?? []))].sort();
  const set = (patch: Partial<PlaylistSpec>) => onChange(withSpec(value, { ...spec, ...patch }));
  const setItems = (next: PlaylistItem[]) => set({ items: next });
  const move = (i: number, by: number) => {
    const next = [...items];
    const [it] = next.splice(i, 1);
    next.splice(i + by, 0, it);
    setItems(next);
  };
  return (
    <Stack spacing={2}>
      <Field label="Display name" value={spec.display?.name} onChange={(v) => set({ display: { ...spec.display, name: v } })} />
      <Field
        label="Interval"
        value={spec.interval}
        onChange={(v) => set({ interval: v })}
        helperText="How long each dashboard stays on screen: 30s, 5m, 1h (at least 5s)."
        required
      />
      <Typography variant="subtitle2">Shown in this order</Typography>
      {items.length === 0 && (
        <Typography variant="body2" color="text.secondary">
          No dashboards yet: add a dashboard, or every dashboard with a tag.
        </Typography>
      )}
      <Stack spacing={1} component="ol" sx={{ m: 0, pl: 2.5 }} aria-label="playlist items">
        {items.map((item, i) => (
          <Box component="li" key={i} data-testid="playlist-item">
            <Stack direction="row" spacing={1} alignItems="center">
              {item.dashboard && !item.dashboard.project ? (
                <Field
                  select
                  label="Dashboard"
                  value={item.dashboard.name}
                  onChange={(v) => setItems(items.map((x, j) => (j === i ? { dashboard: { name: v } } : x)))}
                >
                  {!dashboards.data?.some((d) => d.metadata.name === item.dashboard?.name) && (
                    <MenuItem value={item.dashboard.name}>{item.dashboard.name || '(choose one)'}</MenuItem>
                  )}
                  {(dashboards.data ?? []).map((d) => (
                    <MenuItem key={d.metadata.name} value={d.metadata.name}>
                      {displayName(d)}
                    </MenuItem>
                  ))}
                </Field>
              ) : item.tag !== undefined ? (
                <Autocomplete
                  freeSolo
                  fullWidth
                  size="small"
                  options={tags}
                  value={item.tag}
                  onInputChange={(_e, v) => setItems(items.map((x, j) => (j === i ? { ...x, tag: v } : x)))}
                  renderInput={(params) => <TextField {...autocompleteInput(params)} label="Every dashboard tagged" />}
                />
              ) : (
                <Typography sx={{ flexGrow: 1 }}>{itemWords(item)}</Typography>
              )}
              <IconButton size="small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`move ${itemWords(item)} up`}>
                <ArrowUp />
              </IconButton>
              <IconButton
                size="small"
                disabled={i === items.length - 1}
                onClick={() => move(i, 1)}
                aria-label={`move ${itemWords(item)} down`}
              >
                <ArrowDown />
              </IconButton>
              <IconButton size="small" onClick={() => setItems(items.filter((_x, j) => j !== i))} aria-label={`remove ${itemWords(item)}`}>
                <Close />
              </IconButton>
            </Stack>
          </Box>
        ))}
      </Stack>
      <Stack direction="row" spacing={1}>
        <Button size="small" onClick={() => setItems([...items, { dashboard: { name: dashboards.data?.[0]?.metadata.name ?? '' } }])}>
          Add a dashboard
        </Button>
        <Button size="small" onClick={() => setItems([...items, { tag: tags[0] ?? '' }])}>
          Add a tag
        </Button>
      </Stack>
    </Stack>
  );
}
