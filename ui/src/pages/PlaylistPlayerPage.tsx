import { Alert, Box, Button } from '@mui/material';
import { parseDurationString } from '@perses-dev/core';
import { useQuery } from '@tanstack/react-query';
import { milliseconds } from 'date-fns';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { enc, getResource, type Resource } from '../api';
import { isTyping, KIOSK_PARAM, useKiosk } from '../kiosk';
import { PlayedDashboard } from '../playlists/PlayedDashboard';
import { PlayerControls } from '../playlists/PlayerControls';
import { type PlaylistSpec, resolveQueue } from '../playlists/queue';
import { PersesProviders } from '../perses/PersesProviders';
import { ErrorMessage, Loading, useDocumentTitle } from '../widgets';

/** How long each dashboard stays: the playlist's interval (the server refuses one that is not a duration). */
function intervalMs(text: string | undefined): number {
  try {
    return milliseconds(parseDurationString(text ?? ''));
  } catch {
    return 300_000;
  }
}

/**
 * Plays a playlist: its dashboards one after the other, each for the playlist's interval, the
 * last followed by the first (whose tags are then read again). Opened in kiosk mode (`?kiosk`,
 * no app chrome; Escape leaves it, the player goes on). Space pauses and plays, ← and → go to the
 * previous and next dashboard; the bar at the bottom right does the same, and Stop ends it.
 */
export function PlaylistPlayerPage() {
  const { project = '', name = '' } = useParams();
  const navigate = useNavigate();
  const kiosk = useKiosk();
  const [, setParams] = useSearchParams();
  const playlist = useQuery(['resource', 'playlists', project, name], () =>
    getResource<Resource<PlaylistSpec>>('playlists', project, name),
  );
  const version = playlist.data?.object.metadata.version;
  const queue = useQuery(['playlist-queue', project, name, version], () => resolveQueue(playlist.data!.object), {
    enabled: version !== undefined,
  });
  const [index, setIndex] = useState(0);
  const [paused, setPaused] = useState(false);
  const entries = queue.data?.entries ?? [];
  const count = entries.length;
  const current = count > 0 ? entries[index % count] : undefined;
  const title = playlist.data?.object.spec.display?.name?.trim() || name;
  const interval = intervalMs(playlist.data?.object.spec.interval);
  useDocumentTitle(current?.title, title);

  // each dashboard starts from a URL of its own: the last one's time range and variables go.
  // The latest `go` is read through a ref: the timer restarts only when the dashboard changes,
  // not when the dashboard writes its time range or variables into the URL.
  const go = (step: number) => {
    if (count === 0) return;
    const next = new URLSearchParams();
    if (new URLSearchParams(window.location.search).has(KIOSK_PARAM)) next.set(KIOSK_PARAM, '');
    setParams(next, { replace: true });
    const to = ((((index % count) + step) % count) + count) % count;
    // a new round: the playlist may have changed, and its tags may name other dashboards by now
    if (step > 0 && to === 0) {
      void playlist.refetch();
      void queue.refetch();
    }
    setIndex(to);
  };
  const goRef = useRef(go);
  goRef.current = go;

  useEffect(() => {
    if (paused || count === 0) return;
    const timer = setTimeout(() => goRef.current(1), interval);
    return () => clearTimeout(timer);
  }, [paused, count, index, interval]);

  const stop = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    navigate(`/projects/${enc(project)}?tab=playlists`);
  }, [navigate, project]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || e.altKey || e.ctrlKey || e.metaKey) return;
      // Space on a focused button (the bar's) is that button's click
      if (e.key === ' ' && (e.target as HTMLElement | null)?.closest?.('button, a, [role="button"]')) return;
      if (e.key === ' ') setPaused((p) => !p);
      else if (e.key === 'ArrowRight') goRef.current(1);
      else if (e.key === 'ArrowLeft') goRef.current(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (playlist.error) return <ErrorMessage error={playlist.error} />;
  if (queue.error) return <ErrorMessage error={queue.error} />;
  if (!playlist.data || !queue.data) return <Loading />;
  if (!current) {
    return (
      <Box sx={{ p: 3 }}>
        <Alert severity="warning" data-testid="player-empty">
          Nothing to play in “{title}”{queue.data.skipped.length > 0 ? `: ${queue.data.skipped.join('; ')}` : '.'}
        </Alert>
        <Button component={RouterLink} to={`/projects/${enc(project)}?tab=playlists`} sx={{ mt: 2 }}>
          Back to the playlists
        </Button>
      </Box>
    );
  }
  return (
    <PersesProviders>
      <PlayedDashboard key={`${index}/${current.project}/${current.name}`} project={current.project} name={current.name} />
      <PlayerControls
        title={`${title}: ${current.title}`}
        position={(index % count) + 1}
        count={count}
        interval={playlist.data.object.spec.interval}
        paused={paused}
        autoHide={kiosk}
        skipped={queue.data.skipped}
        onPause={() => setPaused((p) => !p)}
        onNext={() => go(1)}
        onPrevious={() => go(-1)}
        onStop={stop}
      />
    </PersesProviders>
  );
}
