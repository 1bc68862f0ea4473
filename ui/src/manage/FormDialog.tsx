import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  ToggleButton,
  ToggleButtonGroup,
} from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { createResource, putResource, type Resource } from '../api';
import { DraftOfferAlert, useDraft } from '../DraftOffer';
import { draftKey } from '../drafts';
import { ApiErrorAlert, nameProblem, slug } from './ApiErrorAlert';
import { testDatasource, testUrl, type TestResult } from './datasource-test';
import { FORMS } from './forms';
import { YamlField } from './forms/YamlField';
import { titleOf, type KindUi } from '../kinds';

export interface FormDialogProps {
  kind: KindUi;
  project?: string | undefined;
  /** The object to edit; absent: create a new one. */
  initial?: Resource;
  open: boolean;
  onClose(): void;
  onSaved(saved: Resource): void;
  /** Saved without closing (Save & test): lists may refresh. */
  onChanged?(saved: Resource): void;
}

/**
 * Create or edit one object with its kind's form (or its spec as YAML). Creating asks for a
 * name, suggested from the display name; editing saves with If-Match on the version loaded.
 */
export function FormDialog({ kind, project, initial, open, onClose, onSaved, onChanged }: FormDialogProps) {
  const blank = (): Resource => ({
    kind: kind.kind,
    metadata: { name: '', ...(kind.scope === 'project' && project ? { project } : {}) },
    spec: kind.newSpec() as Record<string, unknown>,
  });
  const [draft, setDraft] = useState<Resource>(() => initial ?? blank());
  const [nameTouched, setNameTouched] = useState(false);
  const [mode, setMode] = useState<'form' | 'yaml'>(FORMS[kind.kind] ? 'form' : 'yaml');
  // after a Save & test the object exists: later saves update it
  const [stored, setStored] = useState<Resource | undefined>(initial);
  const [test, setTest] = useState<TestResult>();
  const isNew = stored === undefined;
  useEffect(() => {
    if (open) {
      setDraft(initial ?? blank());
      setStored(initial);
      setNameTouched(false);
      saving.reset();
      setTest(undefined);
      setRestoredOver(undefined);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, initial]);

  // the unsaved form is kept in the tab (a session that ends, a reload) and offered when it opens again
  const kept = useDraft(
    open ? draftKey('form', kind.kind, project, initial?.metadata.name ?? '') : undefined,
    draft,
    initial ?? blank(),
    stored?.metadata.version ?? -1,
  );
  const [restoredOver, setRestoredOver] = useState<number>();
  const close = () => {
    kept.forget();
    onClose();
  };

  const title = titleOf(kind, draft);
  // the name follows the display name until the user types one
  useEffect(() => {
    if (isNew && !nameTouched && title !== undefined) setDraft((d) => ({ ...d, metadata: { ...d.metadata, name: slug(title) } }));
  }, [isNew, nameTouched, title]);

  const Form = FORMS[kind.kind];
  const problem = isNew ? nameProblem(draft.metadata.name) : undefined;
  const write = async (): Promise<Resource> =>
    isNew
      ? createResource(kind.plural, project, draft)
      : (await putResource(kind.plural, project, draft.metadata.name, draft, `"${stored!.metadata.version}"`)).object;
  // Save closes the dialog; Save & test (datasources) keeps it open to fix and retry, then queries
  // the datasource as the dashboards will
  const saving = useMutation(async (andTest: boolean) => {
    setTest(undefined);
    const saved = await write();
    kept.forget();
    if (!andTest) return onSaved(saved);
    setStored(saved);
    setDraft(saved);
    onChanged?.(saved);
    setTest(await testDatasource(kind, saved));
  });
  const save = () => saving.mutate(false);
  const saveAndTest = () => saving.mutate(true);
  const testable = testUrl(kind, draft) !== undefined;
  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (test) resultRef.current?.scrollIntoView({ block: 'nearest' });
  }, [test]);

  return (
    <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="form-dialog-title">
      <DialogTitle id="form-dialog-title">{isNew ? `New ${kind.label}` : `Edit ${kind.label} “${stored!.metadata.name}”`}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <DraftOfferAlert
            state={kept}
            current={stored?.metadata.version}
            onRestore={(d) => {
              setDraft({ ...d.value, metadata: { ...d.value.metadata, ...(stored ? { version: stored.metadata.version } : {}) } });
              setNameTouched(isNew);
              setRestoredOver(d.version >= 0 && stored && d.version !== stored.metadata.version ? stored.metadata.version : undefined);
            }}
          />
          {restoredOver !== undefined && (
            <Alert severity="info" data-testid="draft-restored">
              Restored over version {restoredOver}, saved since your changes were made: saving replaces it with what you see here.
            </Alert>
          )}
          {isNew && (
            <TextField
              label="Name"
              size="small"
              value={draft.metadata.name}
              onChange={(e) => {
                setNameTouched(true);
                setDraft({ ...draft, metadata: { ...draft.metadata, name: e.target.value } });
              }}
              error={nameTouched && problem !== undefined}
              helperText={nameTouched && problem ? problem : 'The identifier in URLs and in dashctl; it cannot change later.'}
              required
              inputProps={{ 'data-testid': 'name-field' }}
            />
          )}
          {Form && (
            <ToggleButtonGroup
              size="small"
              exclusive
              value={mode}
              onChange={(_e, m: 'form' | 'yaml' | null) => m && setMode(m)}
              aria-label="edit as"
            >
              <ToggleButton value="form">Form</ToggleButton>
              <ToggleButton value="yaml">YAML</ToggleButton>
            </ToggleButtonGroup>
          )}
          {mode === 'form' && Form ? (
            <Form value={draft} onChange={setDraft} kind={kind} isNew={isNew} project={project} />
          ) : (
            <YamlField
              label="spec"
              minRows={12}
              value={draft.spec}
              onChange={(spec) => setDraft({ ...draft, spec: spec as Record<string, unknown> })}
            />
          )}
          <ApiErrorAlert error={saving.error} />
          {test && (
            <Alert
              ref={resultRef}
              severity={test.ok ? 'success' : test.untested ? 'warning' : 'error'}
              data-testid="datasource-test"
              role="status"
            >
              {test.ok ? 'Saved and tested: ' : test.untested ? 'Saved, not tested: ' : 'Saved, but the test failed: '}
              {test.text}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{test ? 'Close' : 'Cancel'}</Button>
        {testable && (
          <Button variant="outlined" onClick={saveAndTest} disabled={saving.isLoading || problem !== undefined}>
            Save &amp; test
          </Button>
        )}
        <Button variant="contained" onClick={save} disabled={saving.isLoading || problem !== undefined}>
          {isNew ? 'Create' : 'Save'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
