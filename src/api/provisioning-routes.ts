import type { FastifyInstance } from 'fastify';
import { PROBLEM_TYPES } from '../controllers/provisioning/apply.js';
import type { SourceStatus } from '../controllers/provisioning/status.js';
import type { ResourceService } from '../resources/service.js';
import { documented } from './route-doc.js';

/** The provisioning status route's parts. */
export interface ProvisioningRouteOptions {
  service: ResourceService;
  /** Every provisioning source's last pass. */
  status(): SourceStatus[];
}

const PROBLEM = {
  type: 'object',
  required: ['type', 'message', 'since'],
  properties: {
    type: { type: 'string', enum: PROBLEM_TYPES },
    file: { type: 'string' },
    index: { type: 'integer' },
    line: { type: 'integer' },
    object: { type: 'string', description: 'e.g. "Dashboard demo/cpu"' },
    message: { type: 'string' },
    since: { type: 'string', format: 'date-time' },
  },
};

/**
 * `GET /api/v1/admin/provisioning` [dashplane]: what each provisioning source (folder, Git
 * repository) did at its last pass, and what it could not write and why. For those who may read
 * everything (a global `read` on `*`): it names files and objects of every project.
 */
export function registerProvisioningRoutes(app: FastifyInstance, o: ProvisioningRouteOptions): void {
  app.get(
    '/api/v1/admin/provisioning',
    documented({
      tag: 'System',
      summary: "The provisioning sources' last passes: files and objects read, writes made, and every problem with its file and reason",
      description: 'Needs `read` on every kind everywhere (a global `read` on `*`). See docs/provisioning.md.',
      responses: {
        200: {
          description: '`{"sources": [...]}`, one entry per folder and Git repository, in configuration order (empty without provisioning)',
          schema: {
            type: 'object',
            properties: {
              sources: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    source: { type: 'string' },
                    type: { type: 'string', enum: ['folder', 'git'] },
                    interval: { type: 'string' },
                    commit: { type: 'string' },
                    passes: { type: 'integer' },
                    lastPassAt: { type: 'string', format: 'date-time' },
                    lastPassSeconds: { type: 'number' },
                    files: { type: 'integer' },
                    objects: { type: 'integer' },
                    writes: {
                      type: 'object',
                      properties: { created: { type: 'integer' }, updated: { type: 'integer' }, takenBack: { type: 'integer' } },
                    },
                    problems: { type: 'array', items: PROBLEM },
                  },
                },
              },
            },
          },
        },
        403: { description: 'The caller may not read every kind everywhere', schema: 'Error' },
      },
    }),
    async (req) => {
      await o.service.authorizeEverything(req.principal, ['read']);
      return { sources: o.status() };
    },
  );
}
