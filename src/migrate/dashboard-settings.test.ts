import { expect } from 'chai';
import { DatasourceResolver } from './datasources.js';
import { annotationsOf, dashboardLinks, durationOf, refreshOf, tagsOf, timezoneOf } from './dashboard-settings.js';

describe('migrate: dashboard settings', () => {
  it('keeps IANA time zones, makes "utc" UTC, and leaves "browser", "default" and unknown zones to the browser', () => {
    const notes: string[] = [];
    expect(['utc', 'Europe/Paris', 'browser', 'default', '', undefined].map((tz) => timezoneOf(tz, notes))).to.deep.equal([
      'UTC',
      'Europe/Paris',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(notes).to.deep.equal([]);
    expect(timezoneOf('Mars/Olympus', notes)).to.equal(undefined);
    expect(notes).to.deep.equal(['the time zone "Mars/Olympus" is not known: the browser\'s time zone is used']);
  });

  it('turns relative time ranges into durations, in the largest exact unit', () => {
    const notes: string[] = [];
    expect(durationOf({ from: 'now-6h', to: 'now' }, notes)).to.equal('6h');
    expect(durationOf({ from: 'now-90m', to: 'now' }, notes)).to.equal('90m');
    expect(durationOf({ from: 'now-7d', to: 'now' }, notes)).to.equal('1w');
    expect(durationOf({ from: 'now-30s' }, notes)).to.equal('30s');
    expect(notes).to.deep.equal([]);
  });

  it('approximates months, rounding, ranges that end before now and absolute ranges, saying so', () => {
    const notes: string[] = [];
    expect(durationOf({ from: 'now-1M', to: 'now' }, notes)).to.equal('30d');
    expect(durationOf({ from: 'now/d', to: 'now/d' }, notes)).to.equal(undefined);
    expect(durationOf({ from: 'now-2h', to: 'now-1h' }, notes)).to.equal('1h');
    const now = Date.parse('2024-01-02T00:00:00Z');
    expect(durationOf({ from: '2024-01-01T00:00:00Z', to: '2024-01-01T12:00:00Z' }, notes, now)).to.equal('12h');
    expect(notes.join('\n'))
      .to.match(/30-day months/)
      .and.match(/cannot be read/)
      .and.match(/ending now/);
  });

  it('keeps a refresh interval that is a duration and says when it is not', () => {
    const notes: string[] = [];
    expect(refreshOf('1m', notes)).to.equal('1m');
    expect(refreshOf(false, notes)).to.equal(undefined);
    expect(refreshOf('', notes)).to.equal(undefined);
    expect(refreshOf('1 minute', notes)).to.equal(undefined);
    expect(notes).to.have.length(1);
  });

  it('says a refresh that is not a string (60, true) is no refresh interval, as Grafana reads it', () => {
    const notes: string[] = [];
    expect(refreshOf(60, notes)).to.equal(undefined);
    expect(refreshOf(true, notes)).to.equal(undefined);
    expect(refreshOf(null, notes)).to.equal(undefined);
    expect(notes).to.deep.equal([
      'the refresh setting 60 is not a duration (Grafana reads it as none): the dashboard does not refresh by itself',
      'the refresh setting true is not a duration (Grafana reads it as none): the dashboard does not refresh by itself',
    ]);
  });

  it('keeps tags that are valid metadata tags', () => {
    const notes: string[] = [];
    expect(tagsOf([' kubernetes ', 'kubernetes', 'x'.repeat(51), 'prometheus', 3], notes)).to.deep.equal(['kubernetes', 'prometheus']);
    expect(notes[0]).to.match(/longer than 50/);
  });

  it('maps URL links and reports tag-based dashboard lists as dropped', () => {
    const { links, entries } = dashboardLinks([
      { title: 'Runbook', url: 'https://runbooks/$cluster', type: 'link', targetBlank: true, includeVars: true, tooltip: 'help' },
      { title: 'Related', type: 'dashboards', tags: ['k8s'] },
    ]);
    expect(links).to.deep.equal([
      { name: 'Runbook', url: 'https://runbooks/$cluster', tooltip: 'help', targetBlank: true, renderVariables: true },
    ]);
    expect(entries.map((e) => e.outcome)).to.deep.equal(['mapped', 'dropped']);
    expect(entries[0].notes[0]).to.match(/variables and time range/);
    expect(entries[1].notes[0]).to.match(/tagged k8s/);
  });

  it('maps Prometheus annotations and lists the built-in and other ones as dropped', () => {
    const ds = new DatasourceResolver({}, {});
    const { annotations, entries } = annotationsOf(
      {
        list: [
          { builtIn: 1, datasource: '-- Grafana --', name: 'Annotations & Alerts', enable: true },
          {
            name: 'Deploys',
            datasource: { type: 'prometheus', uid: 'abc' },
            expr: 'changes(x[5m]) > 0',
            titleFormat: '{{job}}',
            tagKeys: 'job, env',
            iconColor: 'red',
            enable: false,
          },
          { name: 'Logs', datasource: { type: 'loki' }, expr: '{job="x"}' },
        ],
      },
      ds,
    );
    expect(annotations).to.deep.equal([
      {
        display: { name: 'Deploys', hidden: true, color: 'red' },
        plugin: { kind: 'PrometheusPromQLAnnotation', spec: { expr: 'changes(x[5m]) > 0', title: '{{job}}', tags: ['job', 'env'] } },
      },
    ]);
    expect(entries.map((e) => e.outcome)).to.deep.equal(['dropped', 'mapped', 'dropped']);
  });

  it('says why an annotation without a query is dropped: a Prometheus one has no expr; no type and no expr', () => {
    const { annotations, entries } = annotationsOf(
      {
        list: [
          { name: 'Empty', datasource: { type: 'prometheus', uid: 'p' }, enable: true },
          { name: 'Defaulted', datasource: null },
          { name: 'Search', datasource: { type: 'elasticsearch', uid: 'e' }, query: 'tags:deploy' },
        ],
      },
      new DatasourceResolver({}, {}),
    );
    expect(annotations).to.deep.equal([]);
    expect(entries.map((e) => e.notes)).to.deep.equal([
      ['the Prometheus annotation has no query (expr), so Grafana showed nothing for it'],
      ['its datasource type cannot be told, and it has no PromQL query (expr)'],
      ['annotations from elasticsearch datasources have no equivalent'],
    ]);
  });
});
