import { Box, Chip, FormControlLabel, Switch, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useState } from 'react';
import type { MigrationReport, ReportCounts, ReportEntry } from './api';

const OUTCOMES = ['mapped', 'approximated', 'unrendered', 'placeholder', 'dropped'] as const;
const COLOURS = { mapped: 'success', approximated: 'warning', unrendered: 'error', placeholder: 'error', dropped: 'default' } as const;

function countsText(c: ReportCounts, what: string): string {
  const parts = OUTCOMES.filter((k) => (c[k] ?? 0) > 0).map((k) => `${c[k]} ${k}`);
  return `${c.total} ${what}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The panel entries this web UI does not draw (an error, a placeholder or no data instead). */
export function undrawnPanels(report: MigrationReport): ReportEntry[] {
  return report.entries.filter((e) => e.subject === 'panel' && e.render && !e.render.renders);
}

/** Whether the web UI draws an element: "drawn", or "not drawn" and why. */
function RenderCell({ entry }: { entry: ReportEntry }) {
  if (!entry.render) return <>-</>;
  if (entry.render.renders) return <Typography variant="body2">drawn</Typography>;
  return (
    <Box data-testid="report-not-drawn">
      <Typography variant="body2" color="error">
        not drawn
      </Typography>
      {entry.render.reasons.map((r, i) => (
        <Typography key={i} variant="body2">
          {r}
        </Typography>
      ))}
    </Box>
  );
}

/**
 * The migration report: the totals, then every panel, variable and setting that was not mapped
 * as it was (all of them with "show everything"), with what became of it, why, and whether this
 * web UI draws it.
 */
export function MigrationReportView({ report }: { report: MigrationReport }) {
  const [all, setAll] = useState(false);
  const s = report.summary;
  const rows = report.entries.filter((e) => all || e.outcome !== 'mapped');
  const judged = report.entries.filter((e) => e.subject === 'panel' && e.render);
  const drawn = judged.length - undrawnPanels(report).length;
  return (
    <Box data-testid="migration-report">
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }} data-testid="report-summary">
        <Chip label={countsText(s.panels, 'panels')} />
        <Chip label={countsText(s.variables, 'variables')} />
        <Chip label={countsText(s.queries, 'queries')} />
        {s.other.total > 0 && <Chip label={countsText(s.other, 'links and annotations')} />}
        {judged.length > 0 && (
          <Chip
            color={drawn === judged.length ? 'success' : 'warning'}
            label={`drawn here: ${drawn} of ${judged.length} panels`}
            data-testid="report-drawn"
          />
        )}
        <FormControlLabel
          control={<Switch size="small" checked={all} onChange={(e) => setAll(e.target.checked)} />}
          label="show everything"
        />
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
              <TableCell>In this UI</TableCell>
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
                <TableCell>
                  <RenderCell entry={e} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  );
}
