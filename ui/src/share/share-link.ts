import { isDurationString, parseDurationString } from '@perses-dev/core';
import { milliseconds } from 'date-fns';
import { KIOSK_PARAM } from '../kiosk';

/** What a shared link holds besides the dashboard's own state. */
export interface ShareOptions {
  /** The time range as two instants (now minus the relative range, and now), not "the last hour". */
  absolute: boolean;
  /** Key of the panel the link opens alone (Perses' view-panel form, `viewPanelRef`); absent: the whole dashboard. */
  panel?: string | undefined;
  kiosk: boolean;
}

/** The URL parameters of the dashboard's state that a link carries: time range, refresh interval, variables (`var-*`). */
const KEPT = (key: string) => key === 'start' || key === 'end' || key === 'refresh' || key.startsWith('var-');

/** Perses' encoding of an absolute time in the URL: milliseconds since the epoch, whole seconds. */
const instant = (ms: number) => String(Math.floor(ms / 1000) * 1000);

/**
 * A link to what the page shows: its path with the time range (relative, as `start=1h`, or
 * absolute, as two instants in ms), the refresh interval, every variable's value, and optionally
 * one panel alone (`viewPanelRef={"ref":"<panel key>"}`, as Perses' own view-panel button puts it)
 * and kiosk mode. Anything else in the URL (edit mode...) is left out.
 */
export function shareLink(page: { origin: string; pathname: string; search: string }, o: ShareOptions, now = Date.now()): string {
  const current = new URLSearchParams(page.search);
  const out = new URLSearchParams();
  for (const [key, value] of current) if (KEPT(key)) out.append(key, value);
  const start = current.get('start');
  if (o.absolute && start && isDurationString(start) && !current.get('end')) {
    out.set('start', instant(now - milliseconds(parseDurationString(start))));
    out.set('end', instant(now));
  }
  if (o.panel !== undefined) out.set('viewPanelRef', JSON.stringify({ ref: o.panel }));
  if (o.kiosk) out.set(KIOSK_PARAM, '');
  const qs = out.toString().replace(/(^|&)kiosk=(&|$)/, '$1kiosk$2');
  return `${page.origin}${page.pathname}${qs ? `?${qs}` : ''}`;
}

/** Whether the page's time range is relative ("the last hour"), which the absolute option turns into two instants. */
export function isRelativeRange(search: string): boolean {
  const p = new URLSearchParams(search);
  const start = p.get('start');
  return !!start && isDurationString(start) && !p.get('end');
}
