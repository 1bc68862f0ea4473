import { Checkbox, FormControlLabel, MenuItem, Stack, ToggleButton, ToggleButtonGroup } from '@mui/material';
import { usePluginKinds } from '../plugins';
import { Field, specOf, withSpec, type FormProps } from './common';
import { YamlField } from './YamlField';

interface VariableSpec {
  kind: 'TextVariable' | 'ListVariable';
  spec: {
    display?: { name?: string | undefined; hidden?: boolean } | undefined;
    value?: string;
    constant?: boolean | undefined;
    allowMultiple?: boolean | undefined;
    allowAllValue?: boolean | undefined;
    plugin?: { kind: string; spec: Record<string, unknown> };
    [other: string]: unknown;
  };
}

/** A project or global variable: a text value, or a list of values from a plugin (label values, a static list...). */
export function VariableForm({ value, onChange }: FormProps) {
  const spec = specOf<VariableSpec>(value);
  const inner = spec.spec ?? {};
  const listPlugins = usePluginKinds('Variable');
  const set = (next: VariableSpec) => onChange(withSpec(value, next));
  const setInner = (patch: Partial<VariableSpec['spec']>) => set({ ...spec, spec: { ...inner, ...patch } });
  const setKind = (k: VariableSpec['kind']) =>
    set(
      k === 'TextVariable'
        ? { kind: k, spec: { display: inner.display, value: '' } }
        : { kind: k, spec: { display: inner.display, plugin: { kind: 'StaticListVariable', spec: { values: [] } } } },
    );
  const plugin = inner.plugin;
  const setPlugin = (p: { kind: string; spec: Record<string, unknown> }) => setInner({ plugin: p });
  return (
    <Stack spacing={2}>
      <Field
        label="Display name"
        value={inner.display?.name}
        onChange={(v) => setInner({ display: { ...inner.display, name: v || undefined } })}
      />
      <ToggleButtonGroup
        size="small"
        exclusive
        value={spec.kind}
        onChange={(_e, k: VariableSpec['kind'] | null) => k && setKind(k)}
        aria-label="variable type"
      >
        <ToggleButton value="TextVariable">Text</ToggleButton>
        <ToggleButton value="ListVariable">List</ToggleButton>
      </ToggleButtonGroup>
      {spec.kind === 'TextVariable' ? (
        <>
          <Field label="Value" value={inner.value} onChange={(v) => setInner({ value: v })} />
          <FormControlLabel
            control={<Checkbox checked={inner.constant === true} onChange={(e) => setInner({ constant: e.target.checked || undefined })} />}
            label="Constant (users cannot change it)"
          />
        </>
      ) : (
        <>
          <Field
            select
            label="Values from"
            value={plugin?.kind}
            onChange={(k) =>
              setPlugin({ kind: k, spec: k === 'StaticListVariable' ? { values: [] } : k.includes('LabelValues') ? { labelName: '' } : {} })
            }
          >
            {listPlugins.map((k) => (
              <MenuItem key={k} value={k}>
                {k}
              </MenuItem>
            ))}
          </Field>
          {plugin?.kind === 'StaticListVariable' ? (
            <Field
              label="Values (comma-separated)"
              value={((plugin.spec.values as (string | { value: string })[] | undefined) ?? [])
                .map((v) => (typeof v === 'string' ? v : v.value))
                .join(', ')}
              onChange={(v) =>
                setPlugin({
                  ...plugin,
                  spec: {
                    values: v
                      .split(',')
                      .map((x) => x.trim())
                      .filter(Boolean),
                  },
                })
              }
            />
          ) : plugin?.kind?.includes('LabelValues') ? (
            <>
              <Field
                label="Label name"
                value={plugin.spec.labelName as string}
                onChange={(v) => setPlugin({ ...plugin, spec: { ...plugin.spec, labelName: v } })}
                required
              />
              <Field
                label="Series matchers (one per line)"
                multiline
                minRows={2}
                value={((plugin.spec.matchers as string[] | undefined) ?? []).join('\n')}
                onChange={(v) => {
                  const matchers = v.split('\n').filter((x) => x.trim());
                  const { matchers: _m, ...rest } = plugin.spec;
                  setPlugin({ ...plugin, spec: matchers.length ? { ...rest, matchers } : rest });
                }}
              />
            </>
          ) : plugin ? (
            <YamlField
              label={`${plugin.kind} spec`}
              value={plugin.spec}
              onChange={(v) => setPlugin({ ...plugin, spec: v as Record<string, unknown> })}
            />
          ) : null}
          <FormControlLabel
            control={
              <Checkbox
                checked={inner.allowMultiple === true}
                onChange={(e) => setInner({ allowMultiple: e.target.checked || undefined })}
              />
            }
            label="Allow several values"
          />
          <FormControlLabel
            control={
              <Checkbox
                checked={inner.allowAllValue === true}
                onChange={(e) => setInner({ allowAllValue: e.target.checked || undefined })}
              />
            }
            label="Offer “All”"
          />
        </>
      )}
    </Stack>
  );
}
