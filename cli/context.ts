import { ApiClient } from './api-client.js';
import { configPath, loadConfig, normaliseUrl, saveConfig, type CliConfig } from './config-file.js';
import { CliError } from './errors.js';
import { processIo, type Io } from './output.js';

/** What every command gets: output, the saved configuration, and one API client made on demand. */
export class Context {
  readonly configFile: string;
  config: CliConfig;
  private apiClient?: ApiClient;

  constructor(
    readonly io: Io = processIo(),
    configFile = configPath(),
  ) {
    this.configFile = configFile;
    this.config = loadConfig(configFile);
  }

  /** The server: `$DASHCTL_URL`, else the one saved by `dashctl login`. */
  get url(): string {
    const raw = process.env.DASHCTL_URL || this.config.url;
    if (!raw) throw new CliError('no server configured; run dashctl login URL first (or set DASHCTL_URL)');
    return normaliseUrl(raw);
  }

  /** The client for the configured server, saving refreshed tokens to the configuration file. */
  client(): ApiClient {
    this.apiClient ??= new ApiClient({
      url: this.url,
      accessToken: process.env.DASHCTL_TOKEN || this.config.accessToken,
      refreshToken: process.env.DASHCTL_TOKEN ? undefined : this.config.refreshToken,
      onTokens: (t) => this.save({ accessToken: t.access_token, refreshToken: t.refresh_token ?? this.config.refreshToken, expiry: t.expiry }),
    });
    return this.apiClient;
  }

  /** Merges `changes` into the saved configuration (re-read first: another dashctl may have refreshed). */
  save(changes: Partial<CliConfig>): void {
    const fresh = loadConfig(this.configFile);
    this.config = { ...fresh, ...changes };
    saveConfig(this.config, this.configFile);
  }

  /** The project for project-scoped objects that do not name one: `--project`, else the saved default. */
  project(flag: string | undefined): string | undefined {
    return flag || process.env.DASHCTL_PROJECT || this.config.project || undefined;
  }

  /** A project-scoped kind needs a project: the flag or the saved default. */
  requiredProject(flag: string | undefined, kind: string): string {
    const p = this.project(flag);
    if (!p) throw new CliError(`${kind} is project-scoped: pass -p PROJECT or set a default with dashctl project NAME`);
    return p;
  }

  async close(): Promise<void> {
    await this.apiClient?.close();
  }
}
