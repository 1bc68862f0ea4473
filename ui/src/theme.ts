// Perses' own MUI theme (light and dark), imported from its file rather than the
// @perses-dev/components index: the index pulls in every component and the chart libraries,
// which the sign-in, home and list pages do not need (they load without them).
import { createTheme, type PaletteMode, type Theme } from '@mui/material';
import { getTheme as persesTheme } from '@perses-dev/components/dist/theme/theme.js';

/**
 * Perses' colours nudged to WCAG AA (4.5:1 for text up to 18px): Perses' light primary (#1473E6)
 * reaches only 4.2:1 on a hovered row, its light error (#EA4747) 3.8:1 on white, its dark primary
 * (#438FEB) 4.3:1 on a hovered dark row and 3.3:1 under white button text, and 4.4:1 on a dialog
 * (a dark paper lifted by its elevation). Each is moved a little towards the next shade of its own
 * hue, so the look stays Perses'.
 */
const AA = {
  light: { primary: '#136BD5', error: '#D03F3F' },
  // dark: text and outlines a shade lighter, filled buttons a blue that white text reads on
  dark: { primary: '#5C9EEE', contained: '#136BD5' },
} as const;

/**
 * A focus ring on every button, icon button, tab, menu item and checkbox that the keyboard
 * focuses (MUI's own mark, a faint tint, was hardly visible): 2 px of the primary colour around
 * it, inside for items of a list or a tab row (where the list would cut it), and in the text's
 * colour on the app bar (whose background is the primary colour).
 */
function focusRing(colour: string) {
  const inside = { '&.Mui-focusVisible': { outlineOffset: '-2px' } };
  return {
    MuiButtonBase: { styleOverrides: { root: { '&.Mui-focusVisible': { outline: `2px solid ${colour}`, outlineOffset: '2px' } } } },
    MuiMenuItem: { styleOverrides: { root: inside } },
    MuiListItemButton: { styleOverrides: { root: inside } },
    MuiTab: { styleOverrides: { root: inside } },
    MuiAppBar: { styleOverrides: { root: { '& .Mui-focusVisible': { outlineColor: 'currentColor' } } } },
  };
}

export function getTheme(mode: PaletteMode): Theme {
  const base = persesTheme(mode);
  if (mode === 'light') {
    return createTheme(base, {
      palette: { primary: { main: AA.light.primary }, info: { main: AA.light.primary }, error: { main: AA.light.error } },
      components: focusRing(AA.light.primary),
    });
  }
  return createTheme(base, {
    palette: { primary: { main: AA.dark.primary }, info: { main: AA.dark.primary } },
    components: {
      ...focusRing(AA.dark.primary),
      MuiButton: { styleOverrides: { containedPrimary: { backgroundColor: AA.dark.contained, color: '#FFFFFF' } } },
    },
  });
}
