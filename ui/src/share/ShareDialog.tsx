import {
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import type { DashboardResource } from '@perses-dev/core';
import { useEffect, useState } from 'react';
import { isRelativeRange, shareLink } from './share-link';

const WHOLE = '';

/** The panels of a dashboard that a link may open alone: key and title, in title order. */
function panelsOf(d: DashboardResource): { key: string; title: string }[] {
  return Object.entries(d.spec.panels ?? {})
    .map(([key, p]) => ({ key, title: p.spec.display?.name?.trim() || key }))
    .sort((a, b) => a.title.localeCompare(b.title));
}

/** The panel the page shows alone (Perses' `viewPanelRef`), if any. */
function viewedPanel(search: string): string {
  try {
    const ref = JSON.parse(new URLSearchParams(search).get('viewPanelRef') ?? 'null') as { ref?: string } | null;
    return typeof ref?.ref === 'string' ? ref.ref : WHOLE;
  } catch {
    return WHOLE;
  }
}

/** Copies text: the Clipboard API where the page may use it (a secure origin), else the selected field and the editing command. */
async function copy(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    field?.select();
    return document.execCommand('copy');
  }
}

/** The parts of the page's URL a link is made of. */
const here = () => ({ origin: window.location.origin, pathname: window.location.pathname, search: window.location.search });

/**
 * Share: a link to what the page shows — the time range (relative, or as two instants with
 * "Absolute time range"), the refresh interval, the variables' values, optionally one panel
 * alone and kiosk mode — to copy. The link is read when the dialog opens. Keyboard: the link
 * field has the focus (its text selected), Tab reaches the options and Copy link.
 */
export function ShareDialog({ dashboard, open, onClose }: { dashboard: DashboardResource; open: boolean; onClose(): void }) {
  const [page, setPage] = useState(here);
  const [absolute, setAbsolute] = useState(false);
  const [kiosk, setKiosk] = useState(false);
  const [panel, setPanel] = useState(WHOLE);
  const [copied, setCopied] = useState<string>();
  const [field, setField] = useState<HTMLInputElement | null>(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!open) return;
    setPage(here());
    setPanel(viewedPanel(window.location.search));
    setNow(Date.now());
    setCopied(undefined);
  }, [open]);
  const relative = isRelativeRange(page.search);
  const link = shareLink(page, { absolute: absolute && relative, kiosk, panel: panel === WHOLE ? undefined : panel }, now);
  const onCopy = async () => setCopied((await copy(link, field)) ? 'Link copied.' : 'Copy it with Ctrl-C: the browser refused to copy.');

  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="share-dialog-title">
      <DialogTitle id="share-dialog-title">Share “{dashboard.spec.display?.name?.trim() || dashboard.metadata.name}”</DialogTitle>
      <DialogContent>
        <Stack spacing={1.5} sx={{ pt: 1 }}>
          <TextField
            label="Link"
            value={link}
            size="small"
            fullWidth
            autoFocus
            inputRef={setField}
            onFocus={(e) => e.target.select()}
            InputProps={{ readOnly: true }}
            inputProps={{ 'data-testid': 'share-link', spellCheck: false }}
            helperText="The time range, refresh interval and variables as shown now."
          />
          <FormControlLabel
            control={<Checkbox checked={absolute && relative} disabled={!relative} onChange={(e) => setAbsolute(e.target.checked)} />}
            label={relative ? 'Absolute time range (the same minutes, whenever the link is opened)' : 'Absolute time range (it already is)'}
          />
          <TextField
            select
            size="small"
            label="Panel"
            value={panel}
            onChange={(e) => setPanel(e.target.value)}
            inputProps={{ 'aria-label': 'panel' }}
          >
            <MenuItem value={WHOLE}>The whole dashboard</MenuItem>
            {panelsOf(dashboard).map((p) => (
              <MenuItem key={p.key} value={p.key}>
                {p.title}
              </MenuItem>
            ))}
          </TextField>
          <FormControlLabel
            control={<Checkbox checked={kiosk} onChange={(e) => setKiosk(e.target.checked)} />}
            label="Kiosk mode (no menus or toolbars, for a wall screen; Escape leaves it)"
          />
          <Typography variant="body2" role="status" color="text.secondary" data-testid="share-copied">
            {copied ?? ''}
          </Typography>
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
        <Button variant="contained" onClick={() => void onCopy()}>
          Copy link
        </Button>
      </DialogActions>
    </Dialog>
  );
}
