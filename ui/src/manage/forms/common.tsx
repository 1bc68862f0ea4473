import { type AutocompleteRenderInputParams, TextField, type TextFieldProps } from '@mui/material';
import type { Resource } from '../../api';
import type { KindUi } from '../../kinds';

/** What every kind's form gets: the whole draft object, and a way to replace it. */
export interface FormProps {
  value: Resource;
  onChange(next: Resource): void;
  kind: KindUi;
  isNew: boolean;
  project?: string | undefined;
}

/** The spec as a record, to read fields from. */
export function specOf<T = Record<string, unknown>>(r: Resource): T {
  return (r.spec ?? {}) as T;
}

/** The draft with its spec replaced. */
export function withSpec(r: Resource, spec: unknown): Resource {
  return { ...r, spec: spec as Record<string, unknown> };
}

/** A text field bound to a string (empty string for missing). */
export function Field({
  value,
  onChange,
  ...rest
}: Omit<TextFieldProps, 'value' | 'onChange'> & { value: string | undefined; onChange(v: string): void }) {
  return <TextField fullWidth size="small" value={value ?? ''} onChange={(e) => onChange(e.target.value)} {...rest} />;
}

/** Drops empty strings and empty objects, so that optional fields left blank are not sent. */
export function pruned<T>(value: T): T {
  if (Array.isArray(value)) return value.map(pruned) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = pruned(v);
    if (p === '' || p === undefined) continue;
    if (p !== null && typeof p === 'object' && !Array.isArray(p) && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out as T;
}

/**
 * An Autocomplete's input props for a TextField: MUI types `size` as possibly undefined, which
 * TextField's own props (checked with exactOptionalPropertyTypes) leave out instead.
 */
export function autocompleteInput(params: AutocompleteRenderInputParams): TextFieldProps {
  const { size, ...rest } = params;
  return { ...rest, ...(size !== undefined ? { size } : {}) } as TextFieldProps;
}
