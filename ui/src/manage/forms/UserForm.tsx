import { Stack } from '@mui/material';
import { useState } from 'react';
import { Field, specOf, withSpec, type FormProps } from './common';

interface UserSpec {
  firstName?: string | undefined;
  lastName?: string | undefined;
  nativeProvider?: { password?: string };
  [other: string]: unknown;
}

/** A user: names, and a password that can only be set (never read): empty keeps the current one. */
export function UserForm({ value, onChange, isNew }: FormProps) {
  const spec = specOf<UserSpec>(value);
  // the stored password comes back masked; sending the mask back keeps it
  const [stored] = useState(spec.nativeProvider?.password === '<secret>');
  const set = (patch: UserSpec) => onChange(withSpec(value, { ...spec, ...patch }));
  const setPassword = (password: string) => {
    const { nativeProvider: _n, ...rest } = spec;
    onChange(withSpec(value, password || stored ? { ...rest, nativeProvider: { password: password || '<secret>' } } : rest));
  };
  return (
    <Stack spacing={2}>
      <Field label="First name" value={spec.firstName} onChange={(v) => set({ firstName: v || undefined })} />
      <Field label="Last name" value={spec.lastName} onChange={(v) => set({ lastName: v || undefined })} />
      <Field
        label={isNew ? 'Password' : 'New password'}
        type="password"
        autoComplete="new-password"
        value={spec.nativeProvider?.password === '<secret>' ? '' : spec.nativeProvider?.password}
        onChange={setPassword}
        required={isNew}
        helperText={isNew ? undefined : "Leave empty to keep the current password. A new one ends the user's other sessions."}
      />
    </Stack>
  );
}
