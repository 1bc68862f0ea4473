import { Argument, Command } from 'commander';
import { configPath, loadConfig } from '../config-file.js';
import { complete } from '../completion.js';
import { serverValues } from '../completion-names.js';
import type { Env } from '../env.js';
import { kindWords } from '../kinds.js';
import { OUTPUT_WORDS } from '../printers.js';

/** The hidden word the shell scripts call dashctl with: `dashctl __complete WORD... CURRENT`. */
export const COMPLETE_COMMAND = '__complete';

const BASH = `# dashctl completion for bash: source <(dashctl completion bash)
_dashctl_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" IFS=$' \\t\\n'
  local -a words
  read -ra words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  local cur="\${words[\${#words[@]}-1]}"
  IFS=$'\\n'
  COMPREPLY=($(dashctl ${COMPLETE_COMMAND} "\${words[@]:1}" 2>/dev/null))
  # bash replaces only what follows the last ':' or '=' (COMP_WORDBREAKS)
  if [[ "$cur" == *[:=]* ]]; then
    local strip="\${cur%"\${cur##*[:=]}"}"
    COMPREPLY=("\${COMPREPLY[@]#"$strip"}")
  fi
}
complete -o default -F _dashctl_complete dashctl
`;

const ZSH = `#compdef dashctl
# dashctl completion for zsh: source <(dashctl completion zsh) (after compinit)
_dashctl() {
  local -a candidates
  candidates=("\${(@f)$(dashctl ${COMPLETE_COMMAND} "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  candidates=(\${candidates:#})
  if (( \${#candidates} )); then compadd -a candidates; else _files; fi
}
compdef _dashctl dashctl
`;

const FISH = `# dashctl completion for fish: dashctl completion fish | source
# One dashctl run a TAB: fish tries the conditions from the last registered up, so
# __dashctl_prepare asks dashctl and keeps its answer, then files are offered when it had none.
function __dashctl_prepare
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -g __dashctl_candidates (dashctl ${COMPLETE_COMMAND} $tokens (commandline -ct) 2>/dev/null)
    test (count $__dashctl_candidates) -gt 0
end
complete -c dashctl -e
complete -c dashctl -F -n 'test (count $__dashctl_candidates) -eq 0'
complete -c dashctl -f -n __dashctl_prepare -a '$__dashctl_candidates'
`;

const SCRIPTS: Record<string, string> = { bash: BASH, zsh: ZSH, fish: FISH };

/**
 * `dashctl completion bash|zsh|fish`: a script that asks dashctl itself what to offer, so
 * subcommands, options, choices, kind names and context names always match this dashctl, and
 * projects and object names come from the server (completion-names.ts).
 */
export function makeCompletionCommand(env: Env): Command {
  return new Command('completion')
    .description('print a shell completion script: source <(dashctl completion bash), or zsh; dashctl completion fish | source')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(SCRIPTS)))
    .action((shell: string) => env.io.out(SCRIPTS[shell]));
}

/** The answer to `dashctl __complete WORD...`: one candidate a line, from the program's command tree and the server. */
export async function completions(program: Command, words: readonly string[], env: Env): Promise<string> {
  const contexts = () => {
    try {
      return Object.keys(loadConfig(configPath(env.io.env, env.io.cwd)).contexts).sort();
    } catch {
      return [];
    }
  };
  const found = await complete(program, words, { kind: kindWords, context: contexts, output: () => OUTPUT_WORDS, ...serverValues(env) });
  return found.map((w) => `${w}\n`).join('');
}
