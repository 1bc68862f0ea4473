/**
 * Where a built object came from: every builder records the call that made it, so that dashctl
 * can name the TypeScript file and line behind a JSON path the server refuses. The call stack is
 * captured, not formatted: V8 formats it (through the source maps dashctl enables) only when a
 * problem asks for it.
 */
import { dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ORIGIN = Symbol.for('dashplane.sdk.origin');
/**
 * This directory: frames inside the SDK itself are not the user's. Run from a checkout, the
 * built files' source maps name the sources (`sdk/` next to `dist/sdk/`): those too.
 */
const SDK_DIR = dirname(fileURLToPath(import.meta.url));

interface Captured {
  stack?: string;
  /** The directory of the SDK copy that recorded it (a project may use its own installed copy). */
  sdkDir: string;
}

/** Records, on `obj` (hidden: JSON and YAML never show it), the call of the builder `fn`. Returns `obj`. */
export function traced<T extends object>(obj: T, fn: (...args: never[]) => unknown): T {
  const captured: Captured = { sdkDir: SDK_DIR };
  Error.captureStackTrace(captured, fn);
  Object.defineProperty(obj, ORIGIN, { value: captured, enumerable: false });
  return obj;
}

/** The `file:line` of the code outside the SDK that built `obj`, if a builder made it. */
export function originOf(obj: unknown): { file: string; line: number } | undefined {
  if (obj === null || typeof obj !== 'object') return undefined;
  const captured = (obj as Record<symbol, Captured | undefined>)[ORIGIN];
  return captured?.stack ? callerIn(captured.stack, withSources(captured.sdkDir)) : undefined;
}

/** The first frame of `stack` in a file outside `skipDirs` (and outside Node itself). */
export function callerIn(stack: string, skipDirs: readonly string[]): { file: string; line: number } | undefined {
  for (const frame of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?$/.exec(frame.trim());
    if (!m || m[1].startsWith('node:')) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (skipDirs.some((d) => file.startsWith(d))) continue;
    return { file, line: Number(m[2]) };
  }
  return undefined;
}

/** A directory of built code, and the sources its source maps point to (`dist/sdk` -> `sdk`). */
export function withSources(dir: string): string[] {
  const source = dir.replace(/([/\\])dist([/\\])(sdk|cli)$/, '$1$3');
  return source === dir ? [`${dir}${sep}`] : [`${dir}${sep}`, `${source}${sep}`];
}

/** The SDK's own directories (frames in them are never the user's). */
export const SDK_DIRS: readonly string[] = withSources(SDK_DIR);
