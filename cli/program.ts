import { Command } from 'commander';
import { makeApplyCommand } from './commands/apply.js';
import { makeAuditCommand } from './commands/audit.js';
import { makeBuildCommand } from './commands/build.js';
import { makeCompletionCommand } from './commands/completion.js';
import { makeDeleteCommand } from './commands/delete.js';
import { makeDescribeCommand } from './commands/describe.js';
import { makeDiffCommand } from './commands/diff.js';
import { makeEditCommand } from './commands/edit.js';
import { makeGenerateCommand } from './commands/generate.js';
import { makeGetCommand } from './commands/get.js';
import { makeHistoryCommand } from './commands/history.js';
import { makeLintCommand } from './commands/lint.js';
import { makeLoginCommand } from './commands/login.js';
import { makeMigrateCommand } from './commands/migrate.js';
import { makeLogoutCommand, makeWhoamiCommand } from './commands/session.js';
import { makeTokenCommand } from './commands/token.js';
import { makeConfigCommand, makeProjectCommand } from './commands/settings.js';
import { clientVersion, makeVersionCommand } from './commands/version.js';
import type { Env } from './env.js';
import { hintHabits } from './habits.js';

/** The dashctl program: one makeXCommand per subcommand, the global `--context`, and hints for kubectl's and percli's options. */
export function buildProgram(env: Env): Command {
  const program = new Command('dashctl')
    .description('command-line client of dashplane (and Perses-compatible servers)')
    .version(clientVersion(), '-V, --version', 'print the dashctl version')
    .option('--context <name>', 'use this context instead of the current one (dashctl config get-contexts lists them)')
    .showHelpAfterError('(run dashctl help for usage)')
    .exitOverride();
  program.hook('preAction', () => env.selectContext(program.opts<{ context?: string }>().context));
  const makers = [
    makeLoginCommand,
    makeLogoutCommand,
    makeWhoamiCommand,
    makeConfigCommand,
    makeProjectCommand,
    makeApplyCommand,
    makeDiffCommand,
    makeGetCommand,
    makeDescribeCommand,
    makeEditCommand,
    makeDeleteCommand,
    makeHistoryCommand,
    makeAuditCommand,
    makeTokenCommand,
    makeLintCommand,
    makeBuildCommand,
    makeGenerateCommand,
    makeMigrateCommand,
    makeVersionCommand,
    makeCompletionCommand,
  ];
  for (const make of makers) program.addCommand(make(env));
  hintHabits(program);
  return program;
}
