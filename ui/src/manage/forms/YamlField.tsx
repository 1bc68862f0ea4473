import { TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { parse, stringify } from 'yaml';

/** A value edited as YAML text; `onChange` gets the parsed value, or is not called while the text does not parse. */
export function YamlField({
  label,
  value,
  onChange,
  minRows = 6,
}: {
  label: string;
  value: unknown;
  onChange(v: unknown): void;
  minRows?: number;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : stringify(value)));
  const [error, setError] = useState<string>();
  // another part of the form replaced the value: show it
  useEffect(() => {
    try {
      if (JSON.stringify(parse(text) ?? {}) !== JSON.stringify(value ?? {})) setText(value === undefined ? '' : stringify(value));
    } catch {
      // keep the user's text while it does not parse
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value]);
  return (
    <TextField
      label={label}
      multiline
      minRows={minRows}
      fullWidth
      value={text}
      error={error !== undefined}
      helperText={error ?? 'YAML'}
      inputProps={{ spellCheck: false, style: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 } }}
      onChange={(e) => {
        setText(e.target.value);
        try {
          onChange(parse(e.target.value) ?? {});
          setError(undefined);
        } catch (err) {
          setError((err as Error).message.split('\n')[0]);
        }
      }}
    />
  );
}
