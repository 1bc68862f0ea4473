import { Alert } from '@mui/material';
import type { ErrorDetail, Resource } from './api';

/** "Panel “CPU”", "Variable “job”" or the path itself: what a warning's path points at, in a dashboard. */
function subject(dashboard: Resource, path: string): string {
  const spec = dashboard.spec as {
    panels?: Record<string, { spec?: { display?: { name?: string } } }>;
    variables?: { spec?: { name?: string } }[];
  };
  const panel = /^spec\.panels(?:\.([\w$-]+)|\["((?:[^"\\]|\\.)*)"\])/.exec(path);
  if (panel) {
    const key = panel[1] ?? JSON.parse(`"${panel[2]}"`);
    return `Panel “${spec.panels?.[key]?.spec?.display?.name ?? key}”`;
  }
  const variable = /^spec\.variables\[(\d+)\]/.exec(path);
  if (variable) return `Variable “${spec.variables?.[Number(variable[1])]?.spec?.name ?? variable[1]}”`;
  return path;
}

/**
 * The server's warnings about the datasources a dashboard asks for (POST /api/validate), one line
 * each, named by panel or variable.
 */
export function DatasourceWarnings({ dashboard, warnings, project }: { dashboard: Resource; warnings: ErrorDetail[]; project: string }) {
  if (!warnings.length) return null;
  return (
    <Alert severity="warning" data-testid="missing-datasources">
      {warnings.length === 1 ? 'One query asks' : `${warnings.length} queries ask`} for a datasource that {project} will not have once this
      is saved:
      <ul style={{ margin: '4px 0 0', paddingLeft: 20 }}>
        {warnings.map((w) => (
          <li key={w.path} data-testid="missing-datasource" data-path={w.path}>
            {subject(dashboard, w.path)} {w.message}.
          </li>
        ))}
      </ul>
    </Alert>
  );
}
