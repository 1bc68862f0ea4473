import { Box, IconButton, Paper, Tooltip, Typography } from '@mui/material';
import Pause from 'mdi-material-ui/Pause';
import Play from 'mdi-material-ui/Play';
import SkipNext from 'mdi-material-ui/SkipNext';
import SkipPrevious from 'mdi-material-ui/SkipPrevious';
import Stop from 'mdi-material-ui/Stop';
import { useEffect, useState } from 'react';

export interface PlayerControlsProps {
  title: string;
  position: number;
  count: number;
  interval: string;
  paused: boolean;
  /** Kiosk mode: the bar fades out 4 s after the last mouse move or key press, and comes back with the next one (or on focus). */
  autoHide: boolean;
  skipped: string[];
  onPause(): void;
  onNext(): void;
  onPrevious(): void;
  onStop(): void;
}

const HIDE_AFTER_MS = 4000;

/** Whether the user moved the mouse or pressed a key in the last 4 s (always true when `enabled` is false). */
function useRecentActivity(enabled: boolean): boolean {
  const [active, setActive] = useState(true);
  useEffect(() => {
    if (!enabled) return;
    let timer = setTimeout(() => setActive(false), HIDE_AFTER_MS);
    const wake = () => {
      setActive(true);
      clearTimeout(timer);
      timer = setTimeout(() => setActive(false), HIDE_AFTER_MS);
    };
    window.addEventListener('mousemove', wake);
    window.addEventListener('keydown', wake);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('mousemove', wake);
      window.removeEventListener('keydown', wake);
    };
  }, [enabled]);
  return active || !enabled;
}

/**
 * The player's bar, bottom right over the dashboard: what is shown (n of m), the interval,
 * previous, pause or play, next, stop; the keys say the same (Space, ← →, and Escape for kiosk).
 */
export function PlayerControls(p: PlayerControlsProps) {
  const shown = useRecentActivity(p.autoHide);
  return (
    <Paper
      elevation={6}
      role="toolbar"
      aria-label="playlist"
      data-testid="player-controls"
      sx={{
        position: 'fixed',
        right: 16,
        bottom: 16,
        zIndex: (t) => t.zIndex.snackbar,
        px: 1.5,
        py: 0.5,
        display: 'flex',
        alignItems: 'center',
        gap: 1,
        opacity: shown ? 0.95 : 0,
        transition: 'opacity 0.4s',
        '&:focus-within, &:hover': { opacity: 0.95 },
      }}
    >
      <Box sx={{ mr: 1, minWidth: 0 }}>
        <Typography variant="body2" component="h1" noWrap data-testid="player-title" sx={{ maxWidth: 320, fontWeight: 600 }}>
          {p.title}
        </Typography>
        <Typography variant="caption" color="text.secondary" data-testid="player-position">
          {p.position} of {p.count} · every {p.interval}
          {p.paused ? ' · paused' : ''}
          {p.skipped.length > 0 && (
            <Tooltip title={p.skipped.join('; ')}>
              <span> · {p.skipped.length} skipped</span>
            </Tooltip>
          )}
        </Typography>
      </Box>
      <Tooltip title="Previous (←)">
        <IconButton size="small" onClick={p.onPrevious} aria-label="previous dashboard" aria-keyshortcuts="ArrowLeft">
          <SkipPrevious />
        </IconButton>
      </Tooltip>
      <Tooltip title={p.paused ? 'Play (Space)' : 'Pause (Space)'}>
        <IconButton size="small" onClick={p.onPause} aria-label={p.paused ? 'play' : 'pause'} aria-keyshortcuts="Space">
          {p.paused ? <Play /> : <Pause />}
        </IconButton>
      </Tooltip>
      <Tooltip title="Next (→)">
        <IconButton size="small" onClick={p.onNext} aria-label="next dashboard" aria-keyshortcuts="ArrowRight">
          <SkipNext />
        </IconButton>
      </Tooltip>
      <Tooltip title="Stop">
        <IconButton size="small" onClick={p.onStop} aria-label="stop the playlist">
          <Stop />
        </IconButton>
      </Tooltip>
    </Paper>
  );
}
