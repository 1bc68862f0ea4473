import type { ResolvedConfig } from '../../config.js';
import { durationMs } from '../../lib/duration.js';
import type { ProvisionerOptions } from './provisioner.js';

/** The configuration's part of the Provisioner's options (provisioning.*, and http.body_limit as the largest file). */
export function provisioningSettings(
  config: Readonly<ResolvedConfig>,
  workDir: string | undefined,
): Pick<ProvisionerOptions, 'folders' | 'interval' | 'intervalMs' | 'watch' | 'git' | 'workDir' | 'gitTimeoutMs' | 'maxFileBytes'> {
  const p = config.provisioning;
  return {
    folders: p.folders,
    interval: p.interval,
    intervalMs: durationMs(p.interval),
    watch: p.enable_watch,
    git: p.git.map((g) => ({
      url: g.url,
      ...(g.ref ? { ref: g.ref } : {}),
      path: g.path ?? '',
      interval: g.interval ?? p.interval,
      intervalMs: durationMs(g.interval ?? p.interval),
      username: g.username ?? 'git',
      ...(g.password_file ? { passwordFile: g.password_file } : {}),
    })),
    ...(workDir !== undefined ? { workDir } : {}),
    gitTimeoutMs: durationMs(p.git_timeout),
    maxFileBytes: config.http.body_limit,
  };
}
