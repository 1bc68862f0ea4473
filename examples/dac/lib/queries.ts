/** A library of PromQL queries: plain functions of the labels they select. */
import { prometheusTimeSeriesQuery } from 'dashplane/sdk';

/** The datasource every query of this library reads (a project datasource, by name). */
export const PROMETHEUS = 'prometheus';

const selector = (service: string) => `job="${service}", instance=~"$instance"`;

export const requestRate = (service: string) =>
  prometheusTimeSeriesQuery({ query: `sum by (code) (rate(http_requests_total{${selector(service)}}[$__rate_interval]))`, seriesNameFormat: '{{code}}', datasource: PROMETHEUS });

export const errorRatio = (service: string) =>
  prometheusTimeSeriesQuery({
    query: `sum(rate(http_requests_total{${selector(service)}, code=~"5.."}[$__rate_interval])) / sum(rate(http_requests_total{${selector(service)}}[$__rate_interval]))`,
    datasource: PROMETHEUS,
  });

export const latency = (service: string, quantile: number) =>
  prometheusTimeSeriesQuery({
    query: `histogram_quantile(${quantile}, sum by (le) (rate(http_request_duration_seconds_bucket{${selector(service)}}[$__rate_interval])))`,
    seriesNameFormat: `p${quantile * 100}`,
    datasource: PROMETHEUS,
  });

export const up = (service: string) => prometheusTimeSeriesQuery({ query: `sum(up{${selector(service)}})`, datasource: PROMETHEUS, instant: true });
