import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * Makes `dir` a TypeScript project whose `dashplane` dependency is `pkg` (default: this package; a
 * symlink in node_modules, as `npm install dashplane` would put it): `dashplane/sdk` then resolves
 * through package.json's exports to the built dist/sdk and its declarations.
 */
export function sdkProject(dir: string, pkg = PACKAGE_ROOT): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(pkg, join(dir, 'node_modules', 'dashplane'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [] },
      include: ['*.ts'],
    }),
  );
}

/** `tsc --strict` (the project's TypeScript) over a project: file name -> its error lines. */
export function typeErrors(dir: string): Map<string, string[]> {
  const r = spawnSync(join(PACKAGE_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir], { encoding: 'utf8', cwd: dir });
  const out = new Map<string, string[]>();
  for (const line of r.stdout.split('\n')) {
    const m = /^(\S+?\.ts)\(\d+,\d+\): error TS/.exec(line);
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), line]);
  }
  if (r.status !== 0 && out.size === 0) throw new Error(`tsc failed without a file error:\n${r.stdout}\n${r.stderr}`);
  return out;
}
