import { Dialog, DialogContent, DialogTitle } from '@mui/material';
import { useEffect, useState } from 'react';
import { SearchBox } from './SearchBox';

/** True for Ctrl-K (⌘-K on a Mac). */
function isSearchShortcut(e: KeyboardEvent): boolean {
  return (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
}

/** The search as a dialog that Ctrl-K / ⌘-K opens from any page; `open`/`onOpenChange` for a button. */
export function SearchDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isSearchShortcut(e)) return;
      e.preventDefault();
      onOpenChange(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onOpenChange]);
  return (
    <Dialog open={open} onClose={() => onOpenChange(false)} fullWidth maxWidth="md" aria-labelledby="search-dialog-title">
      <DialogTitle id="search-dialog-title">Search</DialogTitle>
      <DialogContent sx={{ pt: '8px !important', minHeight: 200 }}>
        {open && <SearchBox autoFocus onOpen={() => onOpenChange(false)} />}
      </DialogContent>
    </Dialog>
  );
}

/** The shortcut's name on this platform. */
export function searchShortcutLabel(): string {
  return /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘K' : 'Ctrl K';
}

/** Open/closed state for the dialog. */
export function useSearchDialog() {
  return useState(false);
}
