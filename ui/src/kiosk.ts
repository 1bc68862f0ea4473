import { useEffect } from 'react';
import { useSearchParams } from 'react-router-dom';

/** The URL parameter of kiosk mode, as Grafana names it: `?kiosk`. */
export const KIOSK_PARAM = 'kiosk';

/** Whether a key event belongs to a field the user types in (its keys are not shortcuts). */
export function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return !!t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
}

/**
 * Kiosk mode: `?kiosk` in the URL hides the app's chrome (app bar, page header, the dashboard's
 * toolbar) for wall screens. Whether it is on.
 */
export function useKiosk(): boolean {
  return useSearchParams()[0].has(KIOSK_PARAM);
}

/** Escape leaves kiosk mode, keeping the rest of the URL (time range, variables); the app's layout listens once. Whether it is on. */
export function useKioskEscape(): boolean {
  const [params, setParams] = useSearchParams();
  const kiosk = params.has(KIOSK_PARAM);
  useEffect(() => {
    if (!kiosk) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const next = new URLSearchParams(window.location.search);
      next.delete(KIOSK_PARAM);
      setParams(next, { replace: true, state: window.history.state?.usr });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [kiosk, setParams]);
  return kiosk;
}
