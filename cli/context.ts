import { ApiClient } from './api-client.js';
import { DEFAULT_CONTEXT, loadConfig, normaliseUrl, saveConfig, type CliConfigFile, type ContextSettings } from './config-file.js';
import { CliError } from './errors.js';
import type { Io } from './io.js';

/**
 * What every command gets: the run's Io, the saved configuration, the context this run uses
 * (`--context`, else `$DASHCTL_CONTEXT`, else the current one) and one API client made on demand.
 */
export class Context {
  readonly configFile: string;
  file: CliConfigFile;
  /** The context of this run; undefined when the file has contexts but none is current. */
  name: string | undefined;
  /** Named by --context or $DASHCTL_CONTEXT (so it must exist, except where a command creates it). */
  readonly explicit: boolean;
  private apiClient?: ApiClient;

  constructor(
    readonly io: Io,
    configFile: string,
    contextName?: string,
  ) {
    this.configFile = configFile;
    this.file = loadConfig(configFile);
    const chosen = contextName || io.env.DASHCTL_CONTEXT || undefined;
    this.explicit = chosen !== undefined;
    this.name = chosen ?? this.file.currentContext ?? (Object.keys(this.file.contexts).length ? undefined : DEFAULT_CONTEXT);
  }

  /** The settings of this run's context (empty when it has none yet). */
  get config(): ContextSettings {
    return (this.name !== undefined && this.file.contexts[this.name]) || {};
  }

  /** The server: `$DASHCTL_URL`, else the one of the context. */
  get url(): string {
    const raw = this.io.env.DASHCTL_URL || this.checked().url;
    if (!raw)
      throw new CliError(
        `no server configured${this.name && this.name !== DEFAULT_CONTEXT ? ` in context "${this.name}"` : ''}; run dashctl login URL first (or set DASHCTL_URL)`,
      );
    return normaliseUrl(raw);
  }

  /**
   * The client for the configured server, saving refreshed tokens to the configuration file.
   * `timeoutMs` (shell completion) limits each request of the client made by the first call.
   */
  client(timeoutMs?: number): ApiClient {
    this.apiClient ??= new ApiClient({
      timeoutMs,
      url: this.url,
      accessToken: this.io.env.DASHCTL_TOKEN || this.config.accessToken,
      refreshToken: this.io.env.DASHCTL_TOKEN ? undefined : this.config.refreshToken,
      onTokens: (t) =>
        this.save({ accessToken: t.access_token, refreshToken: t.refresh_token ?? this.config.refreshToken, expiry: t.expiry }),
    });
    return this.apiClient;
  }

  /** Merges `changes` into this run's context (the file is re-read first: another dashctl may have refreshed). */
  save(changes: Partial<ContextSettings>): void {
    this.checked();
    this.saveContext(this.name!, changes);
  }

  /**
   * Merges `changes` into context `name`, creating it when missing; it becomes current with
   * `makeCurrent`, or when no context is current yet.
   */
  saveContext(name: string, changes: Partial<ContextSettings>, makeCurrent = false): void {
    this.update((file) => {
      file.contexts[name] = { ...(file.contexts[name] ?? {}), ...changes };
      if (makeCurrent || !file.currentContext) file.currentContext = name;
    });
    if (makeCurrent) this.name = name;
  }

  /** Changes the file (re-read first) and writes it. */
  update(change: (file: CliConfigFile) => void): void {
    const fresh = loadConfig(this.configFile);
    change(fresh);
    saveConfig(fresh, this.configFile);
    this.file = fresh;
  }

  /** The context of this run, which must exist when it was named (--context) or when several exist. */
  checked(): ContextSettings {
    if (this.name === undefined)
      throw new CliError('no current context; choose one with dashctl config use-context NAME (dashctl config get-contexts lists them)');
    if (this.explicit && !this.file.contexts[this.name]) throw missingContext(this.name);
    return this.config;
  }

  /** The project for project-scoped objects that do not name one: `--project`, else the saved default. */
  project(flag: string | undefined): string | undefined {
    return flag || this.io.env.DASHCTL_PROJECT || this.config.project || undefined;
  }

  /** A project-scoped kind needs a project: the flag or the saved default. */
  requiredProject(flag: string | undefined, kind: string): string {
    const p = this.project(flag);
    if (!p) throw new CliError(`${kind} is project-scoped: pass -p PROJECT or set a default with dashctl project NAME`);
    return p;
  }

  /** The project of a named object of kind `d`: required for project-scoped kinds, none for global ones. */
  projectFor(d: { kind: string; scope: string }, flag: string | undefined): string | undefined {
    return d.scope === 'project' ? this.requiredProject(flag, d.kind) : undefined;
  }

  async close(): Promise<void> {
    await this.apiClient?.close();
  }
}

/** The error for a context name that is not in the file. */
export function missingContext(name: string): CliError {
  return new CliError(
    `context "${name}" does not exist; dashctl config get-contexts lists them, dashctl config set-context ${name} --server URL creates it`,
  );
}
