import { CssBaseline, ThemeProvider, useMediaQuery } from '@mui/material';
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { getTheme } from './theme';

/** The user's choice: a fixed scheme, or whatever the operating system prefers. */
export type ThemePreference = 'light' | 'dark' | 'system';

const STORAGE_KEY = 'dashplane.theme';

interface ThemeMode {
  preference: ThemePreference;
  /** The scheme in use. */
  mode: 'light' | 'dark';
  setPreference(p: ThemePreference): void;
}

const ThemeModeContext = createContext<ThemeMode>({ preference: 'system', mode: 'light', setPreference: () => undefined });

function stored(): ThemePreference {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/**
 * Light or dark: the user's preference (kept in their server-side profile and, for the first
 * paint and the sign-in page, in this browser), else the operating system's. Perses' own theme
 * (getTheme) in either mode, so its components and charts follow.
 */
export function ThemeModeProvider({ children }: { children: ReactNode }) {
  const systemDark = useMediaQuery('(prefers-color-scheme: dark)', { noSsr: true });
  const [preference, setPref] = useState<ThemePreference>(stored);
  const mode = preference === 'system' ? (systemDark ? 'dark' : 'light') : preference;
  const theme = useMemo(() => getTheme(mode), [mode]);
  const value = useMemo<ThemeMode>(
    () => ({
      preference,
      mode,
      setPreference: (p) => {
        setPref(p);
        try {
          if (p === 'system') localStorage.removeItem(STORAGE_KEY);
          else localStorage.setItem(STORAGE_KEY, p);
        } catch {
          // storage disabled: the server-side profile still remembers it
        }
      },
    }),
    [preference, mode],
  );
  return (
    <ThemeModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </ThemeModeContext.Provider>
  );
}

export function useThemeMode(): ThemeMode {
  return useContext(ThemeModeContext);
}
