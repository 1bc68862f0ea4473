import { Button, IconButton, Tooltip } from '@mui/material';
import type { DashboardResource } from '@perses-dev/core';
import Monitor from 'mdi-material-ui/Monitor';
import ShareVariant from 'mdi-material-ui/ShareVariant';
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { KIOSK_PARAM } from '../kiosk';
import { ShareDialog } from './ShareDialog';

/** Kiosk mode: only the page's dashboard, its panels without their toolbar (the sx of a page whose dashboard box has data-testid="dashboard"). */
export const KIOSK_SX = {
  '& > :not([data-testid="dashboard"])': { display: 'none' },
  '& [data-testid="dashboard-toolbar"]': { display: 'none' },
};

/** A dashboard page's Share button (and its dialog) and its kiosk mode button. */
export function ShareActions({ dashboard }: { dashboard: DashboardResource }) {
  const [sharing, setSharing] = useState(false);
  const [, setParams] = useSearchParams();
  const enterKiosk = () => {
    const next = new URLSearchParams(window.location.search);
    next.set(KIOSK_PARAM, '');
    setParams(next);
  };
  return (
    <>
      <Button size="small" startIcon={<ShareVariant />} onClick={() => setSharing(true)}>
        Share
      </Button>
      <Tooltip title="Kiosk mode: no menus or toolbars, for a wall screen (Escape leaves it)">
        <IconButton size="small" onClick={enterKiosk} aria-label="kiosk mode">
          <Monitor />
        </IconButton>
      </Tooltip>
      {sharing && <ShareDialog dashboard={dashboard} open onClose={() => setSharing(false)} />}
    </>
  );
}
