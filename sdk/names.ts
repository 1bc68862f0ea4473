/** The name of a plugin kind's builder: `TimeSeriesChart` -> `timeSeriesChart`, `SQLDatasource` -> `sqlDatasource`. */
export function builderName(kind: string): string {
  const lead = /^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/.exec(kind)?.[0] ?? '';
  return lead.toLowerCase() + kind.slice(lead.length);
}
