/** The team's standard panels: functions returning panels, shared by every dashboard. */
import { markdown, panel, statChart, timeSeriesChart, type Panel } from 'dashplane/sdk';
import { errorRatio, latency, requestRate, up } from './queries.js';

export const requests = (service: string): Panel =>
  panel({
    title: 'Requests per second',
    description: 'By status code',
    plugin: timeSeriesChart({ legend: { position: 'bottom', mode: 'list' }, yAxis: { format: { unit: 'requests/sec' } } }),
    queries: [requestRate(service)],
  });

export const errors = (service: string): Panel =>
  panel({
    title: 'Error ratio',
    plugin: statChart({ calculation: 'last', format: { unit: 'percent-decimal', decimalPlaces: 2 }, thresholds: { steps: [{ value: 0.01, color: '#e65013' }] } }),
    queries: [errorRatio(service)],
  });

export const latencies = (service: string): Panel =>
  panel({
    title: 'Latency',
    plugin: timeSeriesChart({ yAxis: { format: { unit: 'seconds' } } }),
    queries: [latency(service, 0.5), latency(service, 0.99)],
  });

export const instancesUp = (service: string): Panel =>
  panel({ title: 'Instances up', plugin: statChart({ calculation: 'last' }), queries: [up(service)] });

export const notes = (text: string): Panel => panel({ title: 'About', plugin: markdown({ text }), width: 24, height: 4 });
