import { Alert } from '@mui/material';
import type { ApiError } from '../api';

/** An API error with every detail the server gave (field path and problem). */
export function ApiErrorAlert({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Partial<ApiError>;
  return (
    <Alert severity="error" data-testid="dialog-error">
      {e.message ?? String(error)}
      {e.details && e.details.length > 1 && (
        <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
          {e.details.map((d, i) => (
            <li key={i}>
              <code>{d.path}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
    </Alert>
  );
}

/** Names as the server accepts them (docs/api.md §4). */
export const NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,75}$/;

/** Why a name is not accepted, or undefined. */
export function nameProblem(name: string): string | undefined {
  if (!name) return 'Required.';
  if (!NAME_PATTERN.test(name)) return 'Letters, digits, "_", "-" and "." only (at most 75).';
  if (name.startsWith('.') || name.endsWith('.')) return 'Cannot start or end with ".".';
  return undefined;
}

/** A name derived from a title: "CPU usage (prod)" -> "cpu-usage-prod". */
export function slug(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 75);
}
