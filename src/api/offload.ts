import { Worker } from 'node:worker_threads';
import { ApiError, type ErrorDetail, type Reason } from '../errors.js';
import type { BodyLimits } from './body-limits.js';
import type { MigrateTask, MigrateTaskResult } from './migrate-task.js';

/** The work a request may hand to the worker thread, by name: what it takes and what it gives. */
export interface Tasks {
  /** A YAML body as the JSON text it stands for (`yamlBodyToJson`). */
  yaml: { args: { text: string; limits: BodyLimits }; result: string };
  /** A Grafana dashboard migrated, as the answer's text (`migrateTask`). */
  migrate: { args: MigrateTask; result: MigrateTaskResult };
}

/** Requests waiting for the worker (each about a second at most); one more is answered 503. */
const MAX_WAITING = 64;

/**
 * The worker's heap: the largest YAML body needs about 100 MB while it is read, the largest
 * migration a few times its answer. A task needing more is refused; the process is not at risk.
 */
const WORKER_HEAP_MB = 512;

/** What the worker answers: the task's result, or its error (an ApiError's fields, or a bug). */
export type WorkerAnswer = { result: unknown } | { error: { reason: Reason | 'Bug'; message: string; details?: ErrorDetail[] } };

interface Job {
  message: { task: keyof Tasks; args: unknown };
  /** Why the task failed when it took too long or too much memory (names the request's fix). */
  tooMuch: string;
  resolve(result: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

/**
 * Work a request causes in proportion to its body, done off the event loop (COST-01/02): one task
 * at a time in a worker thread, each within `timeoutMs` (`http.worker_timeout`), so that requests
 * and health probes are served meanwhile. A task that takes longer, or needs more memory than the
 * worker has, is a 413 and the worker is replaced.
 */
export class Offload {
  private worker?: Worker | undefined;
  private running?: Job | undefined;
  private readonly waiting: Job[] = [];

  constructor(private readonly timeoutMs: number) {}

  /** Runs `task` in the worker; `tooMuch` is the message when it takes too long or too much memory. */
  run<K extends keyof Tasks>(task: K, args: Tasks[K]['args'], tooMuch: string): Promise<Tasks[K]['result']> {
    if (this.waiting.length >= MAX_WAITING) {
      return Promise.reject(
        new ApiError('Unavailable', 'the server is busy with other large requests; retry shortly', undefined, { 'Retry-After': '1' }),
      );
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ message: { task, args }, tooMuch, resolve: resolve as (r: unknown) => void, reject });
      this.next();
    });
  }

  /** The time limit, as messages say it. */
  get limit(): string {
    return `${this.timeoutMs / 1000} s`;
  }

  /** Stops the worker; tasks still waiting are refused. */
  async close(): Promise<void> {
    for (const job of this.waiting.splice(0)) job.reject(new ApiError('Unavailable', 'the server is shutting down'));
    if (this.running) this.fail(new ApiError('Unavailable', 'the server is shutting down'));
    await this.worker?.terminate();
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    const job = this.waiting.shift()!;
    this.running = job;
    job.timer = setTimeout(() => this.fail(new ApiError('PayloadTooLarge', job.tooMuch)), this.timeoutMs);
    this.worker ??= this.spawn();
    this.worker.postMessage(job.message);
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./offload-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.unref(); // an idle worker does not keep the process alive
    worker.on('message', (answer: WorkerAnswer) => this.settle(answer));
    worker.on('error', (e: Error & { code?: string }) =>
      this.fail(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new ApiError('PayloadTooLarge', this.running?.tooMuch ?? e.message) : e),
    );
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      if (this.running) this.fail(new Error('the worker thread stopped'));
    });
    return worker;
  }

  private settle(answer: WorkerAnswer): void {
    const job = this.finish();
    if (!job) return;
    if ('result' in answer) job.resolve(answer.result);
    else if (answer.error.reason === 'Bug') job.reject(new Error(answer.error.message));
    else job.reject(new ApiError(answer.error.reason, answer.error.message, answer.error.details));
  }

  /** The running task ends with `e`; the worker (busy or broken) is replaced by a new one for the next. */
  private fail(e: Error): void {
    const job = this.finish();
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
    job?.reject(e);
  }

  /** Takes the running task off, and starts the next. */
  private finish(): Job | undefined {
    const job = this.running;
    this.running = undefined;
    if (job) clearTimeout(job.timer);
    queueMicrotask(() => this.next());
    return job;
  }
}
