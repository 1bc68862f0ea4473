import type { KindDescriptor } from './descriptor.js';
import { Folder } from './generated/validators.js';

/** A folder: a nested list of dashboard and folder names inside a project. */
export const folder: KindDescriptor = {
  kind: 'Folder',
  plural: 'folders',
  scope: 'project',
  validate: Folder,
  history: true,
  searchable: true,
};
