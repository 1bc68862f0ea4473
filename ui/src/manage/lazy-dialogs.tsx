import { type ComponentType, lazy, Suspense } from 'react';

/** A component loaded on first render, with its own (empty) loading state: the page around it stays. */
function deferred<P extends object>(load: () => Promise<ComponentType<P>>) {
  const Lazy = lazy(async () => ({ default: await load() })) as unknown as ComponentType<P>;
  return function Deferred(props: P) {
    return (
      <Suspense fallback={null}>
        <Lazy {...props} />
      </Suspense>
    );
  };
}

// The dialogs (and the forms behind them) load when one first opens, not with every list page.
export const FormDialog = deferred(() => import('./FormDialog').then((m) => m.FormDialog));
export const DeleteDialog = deferred(() => import('./DeleteDialog').then((m) => m.DeleteDialog));
export const DuplicateDialog = deferred(() => import('./DuplicateDialog').then((m) => m.DuplicateDialog));
export const MoveDialog = deferred(() => import('./MoveDialog').then((m) => m.MoveDialog));
export const RenameDialog = deferred(() => import('./RenameDialog').then((m) => m.RenameDialog));
