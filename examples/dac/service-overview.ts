/**
 * One overview dashboard per service of services.csv (an inventory another tool writes): the
 * default export is an async function, so the build can read inputs (next to this file: ctx.dir).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dashboard, listVariable, panelGroup, prometheusLabelValuesVariable, type BuildContext, type Dashboard } from 'dashplane/sdk';
import { errors, instancesUp, latencies, notes, requests } from './lib/panels.js';
import { PROMETHEUS } from './lib/queries.js';

interface Service {
  name: string;
  title: string;
  owner: string;
}

export function serviceOverview(s: Service): Dashboard {
  return dashboard({
    name: `${s.name}-overview`,
    project: 'shop',
    tags: ['gitops', s.owner],
    title: `${s.title} overview`,
    duration: '6h',
    refreshInterval: '1m',
    variables: [
      listVariable({
        name: 'instance',
        display: { name: 'Instance' },
        allowMultiple: true,
        allowAllValue: true,
        plugin: prometheusLabelValuesVariable({ labelName: 'instance', matchers: [`up{job="${s.name}"}`], datasource: PROMETHEUS }),
      }),
    ],
    groups: [
      panelGroup({ panels: [notes(`Owned by **${s.owner}**. Runbook: https://runbooks.example.com/${s.name}`)] }),
      panelGroup({ title: 'Traffic', columns: 3, panels: [requests(s.name), errors(s.name), instancesUp(s.name)] }),
      panelGroup({ title: 'Latency', collapsed: false, columns: 1, height: 10, panels: [latencies(s.name)] }),
    ],
  });
}

export default async (ctx: BuildContext): Promise<Dashboard[]> => {
  const [, ...rows] = (await readFile(join(ctx.dir, 'services.csv'), 'utf8')).trim().split('\n');
  return rows.map((row) => {
    const [name, title, owner] = row.split(',');
    return serviceOverview({ name, title, owner });
  });
};
