import { Alert, Button } from '@mui/material';
import { useEffect, useState } from 'react';
import { type Draft, draftWords, dropDraft, keepDraft, readDraft } from './drafts';
import { useSession } from './permissions';
import { sameJson } from './minimal-save';
import { timeAgo } from './widgets';

/** An editor's draft: the one offered back (kept by an earlier visit), and forgetting the current one. */
export interface DraftState<T> {
  offer?: Draft<T> | undefined;
  /** Saved, reloaded or discarded: nothing to keep. */
  forget(): void;
  /** The offer was taken or declined. */
  settle(): void;
}

/**
 * Keeps `value` in the tab under `key` (drafts.ts) while it differs from `baseline` (what was
 * loaded or last saved), and offers the draft kept under `key` earlier, once per key. No key: an
 * editor that is closed keeps nothing.
 */
export function useDraft<T>(
  key: string | undefined,
  value: T | undefined,
  baseline: T | undefined,
  version: number | undefined,
): DraftState<T> {
  const { user } = useSession();
  const [offer, setOffer] = useState<{ key: string; draft?: Draft<T> | undefined }>();
  useEffect(() => {
    if (key !== undefined && offer?.key !== key) setOffer({ key, draft: readDraft<T>(key, user) });
  }, [key, offer?.key, user]);
  const text = value === undefined ? undefined : JSON.stringify(value);
  useEffect(() => {
    if (key === undefined || text === undefined || version === undefined || offer?.key !== key) return;
    const current = JSON.parse(text) as T;
    if (!sameJson(current, baseline)) keepDraft(key, current, version, user);
  }, [key, text, baseline, version, user, offer?.key]);
  return {
    offer: offer?.key === key ? offer?.draft : undefined,
    forget: () => key !== undefined && dropDraft(key),
    settle: () => setOffer((o) => o && { key: o.key }),
  };
}

/** The offer of a kept draft, with Restore and Discard (Discard forgets it). */
export function DraftOfferAlert<T>({
  state,
  current,
  onRestore,
  detail,
}: {
  state: DraftState<T>;
  current?: number | undefined;
  onRestore(draft: Draft<T>): void;
  detail?: string;
}) {
  const { offer } = state;
  if (!offer) return null;
  return (
    <Alert
      severity="warning"
      sx={{ mb: 1 }}
      data-testid="draft-offer"
      action={
        <>
          <Button
            color="inherit"
            size="small"
            onClick={() => {
              state.settle();
              onRestore(offer);
            }}
          >
            Restore
          </Button>
          <Button
            color="inherit"
            size="small"
            onClick={() => {
              state.forget();
              state.settle();
            }}
          >
            Discard
          </Button>
        </>
      }
    >
      {draftWords(offer, current, timeAgo)}
      {detail ? ` ${detail}` : ''}
    </Alert>
  );
}
