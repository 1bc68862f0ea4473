/** The project and its Prometheus datasource. */
import { datasource, project, prometheusDatasource } from 'dashplane/sdk';
import { PROMETHEUS } from './lib/queries.js';

export default [
  project('shop', { display: { name: 'Shop' } }),
  datasource({ name: PROMETHEUS, project: 'shop' }, { default: true, plugin: prometheusDatasource({ directUrl: 'http://prometheus.example.com:9090' }) }),
];
