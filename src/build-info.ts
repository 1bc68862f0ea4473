import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from './paths.js';

/** What /api/v1/health reports about this build. */
export interface BuildInfo {
  version: string;
  commit: string;
  buildTime: string;
}

/** Version from package.json, commit from DASHPLANE_COMMIT or .git, build time from the compiled file. */
export function readBuildInfo(env: Record<string, string | undefined> = process.env): BuildInfo {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return {
    version: pkg.version,
    commit: env.DASHPLANE_COMMIT ?? gitCommit(),
    buildTime: statSync(fileURLToPath(import.meta.url)).mtime.toISOString(),
  };
}

function gitCommit(): string {
  try {
    const head = readFileSync(join(PACKAGE_ROOT, '.git', 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    return readFileSync(join(PACKAGE_ROOT, '.git', head.slice(5)), 'utf8').trim();
  } catch {
    return 'unknown';
  }
}
