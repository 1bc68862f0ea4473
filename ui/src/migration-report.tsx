import { Box, Chip, FormControlLabel, Switch, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import type { MigrationReport, ReportCounts } from './api';

const COLOURS = { mapped: 'success', approximated: 'warning', placeholder: 'error', dropped: 'default' } as const;

function countsText(c: ReportCounts, what: string): string {
  const parts = (['mapped', 'approximated', 'placeholder', 'dropped'] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return `${c.total} ${what}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/**
 * The migration report: the totals, then every panel, variable and setting that was not mapped
 * as it was (all of them with "show everything"), with what became of it and why.
 */
export function MigrationReportView({ report }: { report: MigrationReport }) {
  const [all, setAll] = useState(false);
  const s = report.summary;
  const rows = report.entries.filter((e) => all || e.outcome !== 'mapped');
  return (
    <Box data-testid="migration-report">
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }} data-testid="report-summary">
        <Chip label={countsText(s.panels, 'panels')} />
        <Chip label={countsText(s.variables, 'variables')} />
        <Chip label={countsText(s.queries, 'queries')} />
        {s.other.total > 0 && <Chip label={countsText(s.other, 'links and annotations')} />}
        <FormControlLabel control={<Switch size="small" checked={all} onChange={(e) => setAll(e.target.checked)} />} label="show everything" />
      </Box>
      {rows.length === 0 ? (
        <Typography sx={{ mt: 1 }} color="text.secondary">
          Everything was mapped as it was.
        </Typography>
      ) : (
        <Table size="small" aria-label="migration report" sx={{ mt: 1 }}>
          <TableHead>
            <TableRow>
              <TableCell>Outcome</TableCell>
              <TableCell>Grafana</TableCell>
              <TableCell>Became</TableCell>
              <TableCell>Notes</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((e, i) => (
              <TableRow key={i} data-testid="report-row" data-outcome={e.outcome}>
                <TableCell>
                  <Chip size="small" color={COLOURS[e.outcome]} label={e.outcome} />
                </TableCell>
                <TableCell>
                  {e.subject} {e.source}
                </TableCell>
                <TableCell>{e.result ?? '-'}</TableCell>
                <TableCell>
                  {e.notes.map((n, j) => (
                    <Typography key={j} variant="body2">
                      {n}
                    </Typography>
                  ))}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}
