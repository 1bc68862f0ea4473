/** The worker thread of `Offload`: runs one task at a time, off the server's event loop. */
import { parentPort } from 'node:worker_threads';
import { isApiError } from '../errors.js';
import type { Tasks, WorkerAnswer } from './offload.js';
import { yamlBodyToJson } from './yaml-body.js';

const TASKS: { [K in keyof Tasks]: (args: Tasks[K]['args']) => Tasks[K]['result'] | Promise<Tasks[K]['result']> } = {
  yaml: ({ text, limits }) => yamlBodyToJson(text, limits),
  // the migration code (two dozen modules) is loaded by the first migration
  migrate: async (args) => (await import('./migrate-task.js')).migrateTask(args),
};

parentPort!.on('message', async ({ task, args }: { task: keyof Tasks; args: never }) => {
  let answer: WorkerAnswer;
  try {
    answer = { result: await TASKS[task](args) };
  } catch (e) {
    answer = isApiError(e)
      ? { error: { reason: e.reason, message: e.message, ...(e.details ? { details: e.details } : {}) } }
      : { error: { reason: 'Bug', message: String((e as Error)?.stack ?? e) } };
  }
  parentPort!.postMessage(answer);
});
