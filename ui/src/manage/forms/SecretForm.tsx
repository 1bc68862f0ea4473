import { Checkbox, Divider, FormControlLabel, Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useState } from 'react';
import { Field, specOf, withSpec, type FormProps } from './common';

/** What the server answers instead of a stored secret value (and accepts back as "keep it"). */
export const SECRET_MASK = '<secret>';

interface SecretSpec {
  basicAuth?: { username?: string; password?: string | undefined };
  authorization?: { type?: string; credentials?: string | undefined };
  tlsConfig?: { ca?: string; cert?: string; key?: string; serverName?: string; insecureSkipVerify?: boolean };
  [other: string]: unknown;
}

type Auth = 'none' | 'basic' | 'bearer';

/**
 * A secret's values are write-only: the server never sends them back (it sends "<secret>"). A
 * stored value shows as such; leaving its field empty keeps it, typing replaces it.
 */
export function SecretForm({ value, onChange }: FormProps) {
  const spec = specOf<SecretSpec>(value);
  const auth: Auth = spec.basicAuth ? 'basic' : spec.authorization ? 'bearer' : 'none';
  const set = (next: SecretSpec) => onChange(withSpec(value, next));
  const setAuth = (a: Auth) => {
    const { basicAuth: _b, authorization: _a, ...rest } = spec;
    set(a === 'basic' ? { ...rest, basicAuth: { username: '' } } : a === 'bearer' ? { ...rest, authorization: { type: 'Bearer' } } : rest);
  };
  const tls = spec.tlsConfig ?? {};
  const setTls = (patch: Record<string, unknown>) => {
    const next = { ...tls, ...patch };
    const empty = Object.values(next).every((v) => v === undefined || v === '' || v === false);
    const { tlsConfig: _t, ...rest } = spec;
    set(empty ? rest : { ...rest, tlsConfig: next });
  };
  return (
    <Stack spacing={2}>
      <Typography variant="body2" color="text.secondary">
        Values are write-only: nobody can read them back, not even you. A stored value shows as “stored”; leave it empty to keep it.
      </Typography>
      <ToggleButtonGroup size="small" exclusive value={auth} onChange={(_e, a: Auth | null) => a && setAuth(a)} aria-label="authentication">
        <ToggleButton value="none">No authentication</ToggleButton>
        <ToggleButton value="basic">Basic auth</ToggleButton>
        <ToggleButton value="bearer">Bearer token</ToggleButton>
      </ToggleButtonGroup>
      {spec.basicAuth && (
        <>
          <Field
            label="User name"
            value={spec.basicAuth.username}
            onChange={(v) => set({ ...spec, basicAuth: { ...spec.basicAuth, username: v } })}
            required
            autoComplete="off"
          />
          <WriteOnly
            label="Password"
            stored={spec.basicAuth.password}
            onChange={(v) => set({ ...spec, basicAuth: { ...spec.basicAuth, password: v } })}
          />
        </>
      )}
      {spec.authorization && (
        <WriteOnly
          label="Token"
          stored={spec.authorization.credentials}
          onChange={(v) => set({ ...spec, authorization: { ...spec.authorization, credentials: v } })}
        />
      )}
      <Divider textAlign="left">TLS</Divider>
      <WriteOnly label="CA certificate (PEM)" multiline stored={tls.ca} onChange={(v) => setTls({ ca: v })} />
      <WriteOnly label="Client certificate (PEM)" multiline stored={tls.cert} onChange={(v) => setTls({ cert: v })} />
      <WriteOnly label="Client key (PEM)" multiline stored={tls.key} onChange={(v) => setTls({ key: v })} />
      <Field label="Server name" value={tls.serverName} onChange={(v) => setTls({ serverName: v || undefined })} />
      <FormControlLabel
        control={
          <Checkbox
            checked={tls.insecureSkipVerify === true}
            onChange={(e) => setTls({ insecureSkipVerify: e.target.checked || undefined })}
          />
        }
        label="Skip certificate verification (insecure)"
      />
    </Stack>
  );
}

/** A field for a write-only value: "stored" when the server holds one (the mask), empty keeps it. */
function WriteOnly({
  label,
  stored,
  onChange,
  multiline,
}: {
  label: string;
  stored?: string | undefined;
  onChange(v: string | undefined): void;
  multiline?: boolean;
}) {
  const isStored = stored === SECRET_MASK;
  const [wasStored] = useState(isStored);
  return (
    <Field
      label={label}
      type={multiline ? 'text' : 'password'}
      {...(multiline ? { multiline, minRows: 2 } : {})}
      autoComplete="new-password"
      value={isStored ? '' : stored}
      placeholder={isStored ? 'stored — leave empty to keep' : ''}
      {...(isStored ? { helperText: 'A value is stored.', InputLabelProps: { shrink: true } } : {})}
      onChange={(v) => onChange(v === '' ? (wasStored ? SECRET_MASK : undefined) : v)}
    />
  );
}
