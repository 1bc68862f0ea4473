import { Box, Chip, InputAdornment, List, ListItemButton, ListItemText, TextField, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import Magnify from 'mdi-material-ui/Magnify';
import { type KeyboardEvent, useEffect, useId, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { fieldLabel, objectPath } from '../links';
import { search, type SearchHit } from '../profile-api';
import { ErrorMessage } from '../widgets';

/** Waits this long after the last key before asking the server. */
const DEBOUNCE_MS = 150;

/**
 * A search across every project the user may read (names, titles, tags, panel titles, query
 * text) with its results as a listbox: arrows move, Enter opens, the mouse works too.
 */
export function SearchBox({ autoFocus, onOpen, initial = '' }: { autoFocus?: boolean; onOpen?: () => void; initial?: string }) {
  const [text, setText] = useState(initial);
  const [query, setQuery] = useState(initial.trim());
  const [active, setActive] = useState(0);
  const navigate = useNavigate();
  const listId = useId();

  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);
  const results = useQuery(['search', query], () => search(query), { enabled: query !== '', keepPreviousData: true, staleTime: 10_000 });
  const hits = query === '' ? [] : (results.data ?? []);
  useEffect(() => setActive(0), [query]);

  const open = (hit: SearchHit) => {
    onOpen?.();
    navigate(objectPath(hit));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (hits.length) setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : hits.length - 1)) % hits.length);
    } else if (e.key === 'Enter' && hits[active]) {
      e.preventDefault();
      open(hits[active]);
    }
  };

  return (
    <Box>
      <TextField
        fullWidth
        autoFocus={autoFocus === true}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder="Dashboards, panels, queries, tags, projects…"
        label="Search everything"
        inputProps={{
          role: 'combobox',
          'aria-expanded': hits.length > 0,
          'aria-controls': listId,
          'aria-activedescendant': hits[active] ? `${listId}-${active}` : undefined,
          'aria-autocomplete': 'list',
        }}
        InputProps={{
          startAdornment: (
            <InputAdornment position="start">
              <Magnify />
            </InputAdornment>
          ),
        }}
      />
      {results.error ? <ErrorMessage error={results.error} /> : null}
      {query !== '' && results.isSuccess && hits.length === 0 && (
        <Typography sx={{ mt: 1 }} color="text.secondary" data-testid="search-empty">
          Nothing matches “{query}”.
        </Typography>
      )}
      {hits.length > 0 && (
        <List id={listId} role="listbox" aria-label="search results" dense sx={{ mt: 1, maxHeight: 420, overflow: 'auto' }}>
          {hits.map((h, i) => (
            <ListItemButton
              key={`${h.kind}/${h.project ?? ''}/${h.name}`}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              selected={i === active}
              onMouseEnter={() => setActive(i)}
              onClick={() => open(h)}
              data-testid="search-hit"
            >
              <ListItemText
                primary={
                  <Box component="span" sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                    <Chip size="small" label={h.kind} variant="outlined" />
                    <strong>{h.title ?? h.name}</strong>
                    <Typography component="span" variant="caption" color="text.secondary">
                      {h.project ? `${h.project} / ${h.name}` : h.name}
                    </Typography>
                    {(h.tags ?? []).map((t) => (
                      <Chip key={t} size="small" label={t} />
                    ))}
                  </Box>
                }
                secondary={
                  h.match ? (
                    <span data-testid="search-match">
                      {fieldLabel(h.match.path)}: <code>{h.match.text}</code>
                    </span>
                  ) : undefined
                }
              />
            </ListItemButton>
          ))}
        </List>
      )}
    </Box>
  );
}
