/** A Grafana "export for sharing externally": `__inputs`, a row, a stat and a graph on `${DS_PROMETHEUS}`. */
export const GRAFANA_EXPORT = {
  __inputs: [{ name: 'DS_PROMETHEUS', label: 'Prometheus', type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus' }],
  uid: 'svc-overview',
  title: 'Service overview',
  tags: ['imported'],
  time: { from: 'now-30m', to: 'now' },
  refresh: '10s',
  templating: {
    list: [
      { type: 'query', name: 'job', datasource: '${DS_PROMETHEUS}', query: 'label_values(up, job)', current: { value: 'prometheus' } },
    ],
  },
  panels: [
    { type: 'row', title: 'Health', collapsed: false, gridPos: { x: 0, y: 0, w: 24, h: 1 }, panels: [] },
    {
      type: 'stat',
      title: 'Targets up',
      datasource: '${DS_PROMETHEUS}',
      gridPos: { x: 0, y: 1, w: 6, h: 5 },
      targets: [{ refId: 'A', expr: 'sum(up{job="$job"})' }],
      fieldConfig: { defaults: { unit: 'none' } },
    },
    {
      type: 'graph',
      title: 'Scrape duration',
      datasource: '${DS_PROMETHEUS}',
      gridPos: { x: 6, y: 1, w: 18, h: 5 },
      yaxes: [{ format: 's' }],
      targets: [{ refId: 'A', expr: 'scrape_duration_seconds{job="$job"}', legendFormat: '{{instance}}' }],
    },
  ],
};
