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
import { withHabitHint } from './habits.js';
import { wantsColour, type Io } from './io.js';

/**
 * The dashctl program: one makeXCommand per subcommand, the global `--context`, and hints for
 * kubectl's and percli's options. Everything commander writes goes to the run's Io, and none of
 * its commands exits the process (a CommanderError is thrown instead; cli/run.ts).
 */
export function buildProgram(env: Env): Command {
  const program = new Command('dashctl')
    .description('command-line client of dashplane (and Perses-compatible servers)')
    .version(clientVersion(), '-V, --version', 'print the dashctl version')
    .option('--context <name>', 'use this context instead of the current one (dashctl config get-contexts lists them)')
    .showHelpAfterError('(run dashctl help for usage)');
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
  useIo(program, env.io);
  return program;
}

/** `cmd` and its subcommands write to `io`, colour as it says, and throw instead of exiting. */
function useIo(cmd: Command, io: Io): void {
  cmd.exitOverride().configureOutput({
    writeOut: (s) => io.out(s),
    writeErr: (s) => io.err(s),
    outputError: (s, write) => write(withHabitHint(cmd, s)),
    getOutHelpWidth: () => (io.tty && io.columns) || 80,
    getErrHelpWidth: () => (io.errTty && io.columns) || 80,
    getOutHasColors: () => io.colour,
    getErrHasColors: () => wantsColour(io.errTty, io.env),
  });
  for (const sub of cmd.commands) useIo(sub, io);
}
