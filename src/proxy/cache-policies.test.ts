import { expect } from 'chai';
import { resolveConfig, type ServerConfig } from '../config.js';
import { CachePolicies, datasourcePath } from './cache-policies.js';

const policies = (cache: NonNullable<ServerConfig['proxy']>['cache'] = {}) =>
  new CachePolicies(resolveConfig({ proxy: { cache } }).proxy.cache);

describe('query cache settings per datasource (proxy.cache)', () => {
  it('defaults: on, 10 s, aligned to 15 s', () => {
    expect(policies().of('projects/p/datasources/prom')).to.deep.equal({ enable: true, ttlMs: 10_000, align: true, resolutionMs: 15_000 });
  });

  it('the first entry whose path matches sets what it names; a * segment matches any name', () => {
    const p = policies({
      ttl: '5s',
      datasources: [
        { datasource: 'projects/ops/datasources/thanos', ttl: '1m', align: false },
        { datasource: 'projects/*/datasources/thanos', enable: false },
        { datasource: 'globaldatasources/*', resolution: '1m' },
        { datasource: 'projects/ops/dashboards/*/datasources/local', ttl: '0s' },
      ],
    });
    expect(p.of('projects/ops/datasources/thanos')).to.deep.equal({ enable: true, ttlMs: 60_000, align: false, resolutionMs: 15_000 });
    expect(p.of('projects/dev/datasources/thanos')).to.deep.equal({ enable: false, ttlMs: 5_000, align: true, resolutionMs: 15_000 });
    expect(p.of('globaldatasources/prom').resolutionMs).to.equal(60_000);
    expect(p.of('projects/ops/dashboards/d1/datasources/local').ttlMs).to.equal(0);
    expect(p.of('projects/ops/datasources/prom')).to.deep.equal({ enable: true, ttlMs: 5_000, align: true, resolutionMs: 15_000 });
  });

  it('names datasources as their proxy URLs do', () => {
    expect([
      datasourcePath(undefined, undefined, 'g'),
      datasourcePath('p', undefined, 'd'),
      datasourcePath('p', 'dash', 'My Prometheus'),
    ]).to.deep.equal(['globaldatasources/g', 'projects/p/datasources/d', 'projects/p/dashboards/dash/datasources/My Prometheus']);
  });

  it('refuses at start: a path of another shape, the same path twice, a shared answer larger than the cache', () => {
    expect(() => policies({ datasources: [{ datasource: 'datasources/prom' }] })).to.throw(
      /proxy\.cache\.datasources\/0\/datasource|datasources\[0\]/,
    );
    expect(() =>
      policies({ datasources: [{ datasource: 'projects/p/datasources/a' }, { datasource: 'projects/p/datasources/a', ttl: '1s' }] }),
    ).to.throw(
      /proxy\.cache\.datasources\[1\]\.datasource: "projects\/p\/datasources\/a" is already listed at proxy\.cache\.datasources\[0\]/,
    );
    expect(() => policies({ max_size_mb: 1, max_answer_mb: 2 })).to.throw(
      /proxy\.cache\.max_answer_mb \(2\) must not be more than proxy\.cache\.max_size_mb \(1\)/,
    );
  });
});
