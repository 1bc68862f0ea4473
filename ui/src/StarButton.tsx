import { IconButton, Tooltip } from '@mui/material';
import Star from 'mdi-material-ui/Star';
import StarOutline from 'mdi-material-ui/StarOutline';
import { useStar } from './profile';
import type { ObjectRef } from './profile-api';

/** ☆/★ for an object in the user's starred list (kept server-side, per user). */
export function StarButton({ target }: { target: ObjectRef }) {
  const { starred, ready, toggle, busy } = useStar(target);
  const label = starred ? 'Unstar' : 'Star';
  return (
    <Tooltip title={starred ? 'Starred: shown on the home page' : 'Star: show it on the home page'}>
      <span>
        <IconButton size="small" aria-label={label} aria-pressed={starred} onClick={toggle} disabled={!ready || busy} data-testid="star">
          {starred ? <Star sx={{ color: 'warning.main' }} /> : <StarOutline />}
        </IconButton>
      </span>
    </Tooltip>
  );
}
