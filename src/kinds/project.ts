import type { KindDescriptor } from './descriptor.js';
import { Project } from './generated/validators.js';

/** Project: the global kind whose objects hold every project-scoped object. */
export const project: KindDescriptor = {
  kind: 'Project',
  plural: 'projects',
  scope: 'global',
  validate: Project,
  isProjectScope: true,
};
