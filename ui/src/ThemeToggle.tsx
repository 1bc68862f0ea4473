import { IconButton, ListItemIcon, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import Check from 'mdi-material-ui/Check';
import ThemeLightDark from 'mdi-material-ui/ThemeLightDark';
import WeatherNight from 'mdi-material-ui/WeatherNight';
import WeatherSunny from 'mdi-material-ui/WeatherSunny';
import { useEffect, useRef, useState } from 'react';
import { useProfile } from './profile';
import { setPreferences } from './profile-api';
import { useThemeMode, type ThemePreference } from './theme-mode';

const CHOICES: { value: ThemePreference; label: string }[] = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'system', label: 'Same as the system' },
];

/**
 * The colour scheme menu of the app bar. The choice is saved in the user's profile (so it
 * follows them to other browsers); the profile's choice is applied when it loads.
 */
export function ThemeToggle() {
  const { preference, mode, setPreference } = useThemeMode();
  const profile = useProfile();
  const queryClient = useQueryClient();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const applied = useRef(false);
  const saved = profile.data?.preferences.theme as ThemePreference | undefined;
  useEffect(() => {
    if (applied.current || !profile.isSuccess) return;
    applied.current = true;
    if (saved === 'light' || saved === 'dark' || saved === 'system') setPreference(saved);
  }, [profile.isSuccess, saved, setPreference]);

  const choose = (p: ThemePreference) => {
    setAnchor(null);
    setPreference(p);
    setPreferences({ theme: p === 'system' ? null : p })
      .then((next) => queryClient.setQueryData(['profile'], next))
      .catch(() => undefined); // kept in this browser at least
  };
  return (
    <>
      <Tooltip title={`Colour scheme: ${CHOICES.find((c) => c.value === preference)!.label.toLowerCase()}`}>
        <IconButton
          color="inherit"
          aria-label="Colour scheme"
          aria-haspopup="menu"
          onClick={(e) => setAnchor(e.currentTarget)}
          data-mode={mode}
        >
          {preference === 'system' ? <ThemeLightDark /> : mode === 'dark' ? <WeatherNight /> : <WeatherSunny />}
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        {CHOICES.map((c) => (
          <MenuItem
            key={c.value}
            onClick={() => choose(c.value)}
            selected={c.value === preference}
            role="menuitemradio"
            aria-checked={c.value === preference}
          >
            <ListItemIcon>{c.value === preference ? <Check /> : null}</ListItemIcon>
            <ListItemText>{c.label}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
