import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (where package.json and schemas/ live), from src/ or dist/src/. */
export const PACKAGE_ROOT: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the dashplane package root');
    dir = up;
  }
  return dir;
})();

export const SCHEMAS_DIR = join(PACKAGE_ROOT, 'schemas');
