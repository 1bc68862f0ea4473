import { Command } from 'commander';
import { makeApplyCommand } from './commands/apply.js';
import { makeDeleteCommand } from './commands/delete.js';
import { makeDescribeCommand } from './commands/describe.js';
import { makeDiffCommand } from './commands/diff.js';
import { makeGetCommand } from './commands/get.js';
import { makeHistoryCommand } from './commands/history.js';
import { makeLintCommand } from './commands/lint.js';
import { makeLoginCommand } from './commands/login.js';
import { makeMigrateCommand } from './commands/migrate.js';
import { makeLogoutCommand, makeWhoamiCommand } from './commands/session.js';
import { makeConfigCommand, makeProjectCommand } from './commands/settings.js';
import type { Env } from './env.js';

/** The dashctl program: one makeXCommand per subcommand. */
export function buildProgram(env: Env): Command {
  const program = new Command('dashctl')
    .description('command-line client of dashplane (and Perses-compatible servers)')
    .showHelpAfterError('(run dashctl help for usage)')
    .exitOverride();
  for (const make of [makeLoginCommand, makeLogoutCommand, makeWhoamiCommand, makeConfigCommand, makeProjectCommand, makeApplyCommand, makeDiffCommand, makeGetCommand, makeDescribeCommand, makeDeleteCommand, makeHistoryCommand, makeLintCommand, makeMigrateCommand]) program.addCommand(make(env));
  return program;
}
