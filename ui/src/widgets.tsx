import { Alert, Box, Breadcrumbs, CircularProgress, Link, TextField, Typography } from '@mui/material';
import { type ReactNode, useEffect } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import type { ApiError } from './api';

export function ErrorMessage({ error }: { error: unknown }) {
  const e = error as Partial<ApiError>;
  const message = e?.message ?? String(error);
  return (
    <Alert severity="error" sx={{ m: 2 }} data-testid="error">
      {e?.status === 403 ? `You may not see this: ${message}` : e?.status === 404 ? `Not found: ${message}` : message}
    </Alert>
  );
}

export function Loading() {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', mt: 6 }}>
      <CircularProgress aria-label="loading" />
    </Box>
  );
}

/** A list query's spinner, its error, or `empty` (the text shown for no items); else `children`. */
export function ListBody({
  query,
  empty,
  children,
}: {
  query: { isLoading: boolean; error: unknown };
  empty?: string | undefined;
  children: ReactNode;
}) {
  if (query.isLoading) return <Loading />;
  if (query.error) return <ErrorMessage error={query.error} />;
  if (empty !== undefined) {
    return (
      <Typography sx={{ mt: 2 }} color="text.secondary">
        {empty}
      </Typography>
    );
  }
  return <>{children}</>;
}

export interface Crumb {
  label: string;
  to?: string;
}

/** Names the page in the browser's tab, history and window list: "<what> · dashplane". */
export function useDocumentTitle(...parts: (string | undefined)[]) {
  const title = [...parts.filter(Boolean), 'dashplane'].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/**
 * The page's breadcrumbs, its last crumb the page's heading (h1; "Home" on the home page), and its
 * actions. It names the page in the browser's title too, the most specific crumb first.
 */
export function PageHeader({ crumbs, actions }: { crumbs: Crumb[]; actions?: ReactNode }) {
  useDocumentTitle(...crumbs.map((c) => c.label).reverse());
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, px: 3, pt: 2, pb: 1, flexWrap: 'wrap' }}>
      <Breadcrumbs aria-label="breadcrumb" sx={{ flexGrow: 1 }}>
        {crumbs.length === 0 ? (
          <Typography color="text.primary" component="h1" variant="h6">
            Home
          </Typography>
        ) : (
          <Link component={RouterLink} to="/" underline="hover" color="inherit">
            Home
          </Link>
        )}
        {crumbs.map((c, i) =>
          c.to && i < crumbs.length - 1 ? (
            <Link key={i} component={RouterLink} to={c.to} underline="hover" color="inherit">
              {c.label}
            </Link>
          ) : (
            <Typography key={i} color="text.primary" component="h1" variant="h6">
              {c.label}
            </Typography>
          ),
        )}
      </Breadcrumbs>
      {actions}
    </Box>
  );
}

export function SearchField({ value, onChange, label }: { value: string; onChange: (v: string) => void; label: string }) {
  return (
    <TextField
      size="small"
      type="search"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      sx={{ minWidth: 280 }}
      inputProps={{ 'aria-label': label }}
    />
  );
}

/** Case-insensitive match of every word of the query against a name, display name or tags. */
export function matches(query: string, fields: (string | undefined)[]): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = fields.filter(Boolean).join(' ').toLowerCase();
  return words.every((w) => hay.includes(w.replace(/^tag:/, '')));
}

export function timeAgo(iso?: string): string {
  if (!iso) return '';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** Text for screen readers only (e.g. the header of an actions column). */
export function VisuallyHidden({ children }: { children: ReactNode }) {
  return (
    <Box
      component="span"
      sx={{
        border: 0,
        clip: 'rect(0 0 0 0)',
        height: '1px',
        margin: '-1px',
        overflow: 'hidden',
        padding: 0,
        position: 'absolute',
        whiteSpace: 'nowrap',
        width: '1px',
      }}
    >
      {children}
    </Box>
  );
}
