import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { KindRegistry } from '../kinds/registry.js';
import type { ResourceService } from '../resources/service.js';
import { backupLines } from '../admin/backup.js';
import type { MaintenanceStore } from '../storage/store.js';
import { flag, type Query } from './request-options.js';
import { documented } from './route-doc.js';

export interface BackupRouteOptions {
  registry: KindRegistry;
  service: ResourceService;
  store: MaintenanceStore;
  version: string;
}

/**
 * `GET /api/v1/admin/backup`: a consistent snapshot of the whole store as newline-delimited JSON,
 * streamed while the server keeps serving (`dashplane backup --server` calls it). Only for a
 * caller who may do everything everywhere: it holds password hashes, sessions and encrypted secrets.
 */
export function registerBackupRoutes(app: FastifyInstance, o: BackupRouteOptions): void {
  app.get<{ Querystring: Query }>(
    '/api/v1/admin/backup',
    documented({
      tag: 'System',
      summary: 'A consistent backup of every object, with history and sessions, as newline-delimited JSON',
      description:
        'Needs every permission on every kind (a global `*` on `*`). Secret values stay encrypted: the backup is useless without the encryption key. See docs/operations.md, "Backup and restore".',
      query: [
        { name: 'history', type: 'boolean', description: 'Include the kept versions of every object (default true)' },
        { name: 'sessions', type: 'boolean', description: 'Include sign-in sessions (default true)' },
      ],
      responses: {
        200: {
          description: 'The backup: a header line, object and version lines, an end line with the counts',
          type: 'application/x-ndjson',
          schema: { type: 'string' },
        },
        403: { description: 'Not an administrator', schema: 'Error' },
      },
    }),
    async (req, reply) => {
      await o.service.authorizeEverything(req.principal);
      const on = (name: string) => req.query[name] === undefined || flag(req.query, name);
      const lines = backupLines(o.store, o.registry, { history: on('history'), sessions: on('sessions'), version: o.version });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return reply
        .type('application/x-ndjson; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="dashplane-backup-${stamp}.ndjson"`)
        .send(Readable.from(lines));
    },
  );
}
