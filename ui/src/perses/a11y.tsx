// Accessibility of the Perses components (0.52), worked around in our composition (docs/ui.md,
// "Accessibility"): names for the controls Perses leaves unnamed, roles where its markup contradicts itself, contrast where Perses mixes its
// own colours, a time range picker that opens from the keyboard, and panel actions that show on
// keyboard focus, not only under the mouse. Each fix is found by the browser tests' axe-core sweep
// (test/ui-a11y.test.ts); when Perses fixes one upstream, its rule here finds nothing to do.
import { alpha, GlobalStyles, useTheme } from '@mui/material';
import { useEffect } from 'react';

/**
 * Styles: a panel's header actions (Explore, full screen, the menu) are in the page always
 * (`showIcons: 'always'`, see DashboardView) and only hidden from the eye while the panel is
 * neither hovered nor holds the focus: Tab reaches them, and they show as it does. A panel in edit
 * mode (its "edit panel" button) shows them always, as Perses does.
 */
export function PersesA11yStyles() {
  const theme = useTheme();
  const primary = theme.palette.primary.main;
  return (
    <GlobalStyles
      styles={{
        'section[data-testid="panel"]:not(:hover):not(:focus-within):not(:has(button[aria-label^="edit panel"])) > header button:not([aria-label="panel errors"])':
          { opacity: 0 },
        // the edit mode's toolbar: Perses tints it with its primary at 19 %, under primary text
        // (3.9:1 in light mode, 4.4:1 in dark); a lighter tint of the same hue reads at AA
        '[data-testid="dashboard-toolbar"] > div:first-of-type:has(button[aria-label="Add panel"])': {
          backgroundColor: `${alpha(primary, 0.08)} !important`,
        },
        // CodeMirror's placeholder (#888: 3.5:1 on white)
        '.cm-placeholder': { color: `${theme.palette.text.secondary} !important` },
      }}
    />
  );
}

const named = (el: Element) => el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');

/** Names `el` unless it has a name. */
const label = (el: Element | null, name: string) => {
  if (el && !named(el)) el.setAttribute('aria-label', name);
};

/** What a control in a table row acts on: the row's first cell with text. */
const rowSubject = (el: Element) =>
  [...(el.closest('tr')?.querySelectorAll('td') ?? [])].map((td) => td.textContent?.trim()).find((t) => t) ?? 'the row';

/** Perses' unnamed icon buttons, known by their icon (the start of its SVG path, mdi-material-ui). */
const ICONS: [string, (subject: string) => string][] = [
  ['M13,20H11V8L5.5,13.5', (s) => `Move ${s} up`],
  ['M11,4H13V16L18.5,10.5', (s) => `Move ${s} down`],
  ['M20.71,7.04C21.1,6.65', (s) => `Edit ${s}`],
  ['M9,3V4H4V6H5V19A2', (s) => `Delete ${s}`],
];

/** Fixes of Perses' markup: [selector, what to do to each element it matches (each fix may run again on the same element)]. */
const FIXES: [string, (el: Element) => void][] = [
  ['#download-dashboard-button', (el) => label(el, 'Download the dashboard')],
  // the time range picker's name says "Currently set to [object Object]": it says the range shown
  [
    '[role="combobox"][aria-label^="Select time range"], [role="combobox"][aria-label^="Time range:"]',
    (el) => {
      const name = `Time range: ${el.textContent?.trim()}`;
      if (el.getAttribute('aria-label') !== name) el.setAttribute('aria-label', name);
    },
  ],
  // the download menu nests its menu in another menu (a menu holding no item): the outer one is a mere box
  [
    '#download-dashboard-formats .MuiMenu-list',
    (outer) => {
      const inner = outer.querySelector('[role="menu"]');
      if (!inner) return;
      outer.setAttribute('role', 'none');
      outer.removeAttribute('aria-labelledby');
      outer.removeAttribute('tabindex'); // a focusable element keeps its role
      inner.setAttribute('aria-labelledby', 'download-dashboard-button');
    },
  ],
  // the query editor's fold chevron and delete button, on either side of its "Query #n" heading
  [
    'h4',
    (h) => {
      if (!/^Query #\d+$/.test(h.textContent ?? '')) return;
      const [fold, del] = [h.previousElementSibling, h.nextElementSibling];
      if (fold?.tagName === 'BUTTON') label(fold, `Show or hide ${h.textContent}`);
      if (del?.tagName === 'BUTTON') label(del, `Delete ${h.textContent}`);
    },
  ],
  // the PromQL (and other) query editors: CodeMirror without a label
  ['.cm-content[contenteditable]', (el) => label(el, 'Query')],
  // row selection checkboxes of Perses' tables (the table legend)
  ['table input[type="checkbox"]', (box) => label(box, box.closest('th') ? 'Select all rows' : `Select ${rowSubject(box)}`)],
  // icon buttons of the variables editor's table (move, edit, delete)
  [
    'td .MuiIconButton-root',
    (b) => {
      const d = b.querySelector('svg path')?.getAttribute('d') ?? '';
      const icon = ICONS.find(([prefix]) => d.startsWith(prefix));
      if (icon) label(b, icon[1](rowSubject(b)));
    },
  ],
  // the loading skeleton carries a name that its role (none) may not have: it is a progress bar
  ['.MuiSkeleton-root[aria-label]:not([role])', (el) => el.setAttribute('role', 'progressbar')],
];

function fixMarkup(root: ParentNode) {
  for (const [selector, fix] of FIXES) {
    for (const el of root.querySelectorAll(selector)) fix(el);
  }
}

/** The time range picker's field (Perses' controlled Select opens only on a click). */
function timeRangeField(el: Element | null): HTMLElement | undefined {
  if (!(el instanceof HTMLElement) || el.getAttribute('role') !== 'combobox') return undefined;
  return /^(Select time range|Time range:)/.test(el.getAttribute('aria-label') ?? '') ? el : undefined;
}

/** The time range field whose open list holds `el`, if any. */
function timeRangeFieldOf(el: Element | null): HTMLElement | undefined {
  const list = el?.closest('[role="listbox"]');
  if (!list?.id) return undefined;
  return timeRangeField(document.querySelector(`[role="combobox"][aria-controls="${CSS.escape(list.id)}"]`));
}

/**
 * Keyboard for Perses' time range picker: Enter, Space or the arrows open it (as a click does),
 * Escape and Tab close it, and picking an option with Enter or Space closes it as a click does.
 */
function onKeyDown(e: KeyboardEvent) {
  const target = e.target as Element | null;
  const field = timeRangeField(target);
  if (field && field.getAttribute('aria-expanded') !== 'true' && ['Enter', ' ', 'ArrowDown', 'ArrowUp'].includes(e.key)) {
    e.preventDefault();
    e.stopPropagation();
    field.click();
    return;
  }
  const owner = timeRangeFieldOf(target);
  if (!owner) return;
  if (e.key === 'Escape' || e.key === 'Tab') {
    e.preventDefault();
    e.stopPropagation();
    owner.click();
    owner.focus();
  } else if (e.key === 'Enter' || e.key === ' ') {
    // the option's own handler runs first (it sets the range), then the list closes
    setTimeout(() => {
      if (owner.getAttribute('aria-expanded') === 'true') owner.click();
      owner.focus();
    });
  }
}

/** How many mounted components asked for the fixes (one observer and one listener serve them all). */
let users = 0;
let stop: (() => void) | undefined;

function start(): () => void {
  // in the observer's own callback (a microtask after the change), so that no check of the page
  // sees the markup unfixed
  const observer = new MutationObserver(() => fixMarkup(document.body));
  fixMarkup(document.body);
  observer.observe(document.body, { childList: true, characterData: true, subtree: true });
  document.addEventListener('keydown', onKeyDown, true);
  return () => {
    observer.disconnect();
    document.removeEventListener('keydown', onKeyDown, true);
  };
}

/** Names Perses' unnamed controls as they appear, and gives its time range picker a keyboard. */
export function usePersesA11y() {
  useEffect(() => {
    if (users++ === 0) stop = start();
    return () => {
      if (--users === 0) stop?.();
    };
  }, []);
}
