import type { Command } from 'commander';

/**
 * Options of kubectl and percli that dashctl spells differently: an unknown one gets a hint
 * naming the dashctl option of that command (only options the command has).
 */
const HABITS: { habits: string[]; option: string; what: string }[] = [
  { habits: ['-a', '--all', '--all-namespaces'], option: '--all-projects', what: 'every project' },
  { habits: ['-n', '--namespace'], option: '--project', what: 'dashctl has projects where kubectl has namespaces' },
  { habits: ['-d', '--dir', '--directory', '-R', '--recursive'], option: '--filename', what: 'a directory is read recursively' },
  { habits: ['--force'], option: '--force-conflicts', what: 'overwrite objects another field manager changed since dashctl applied them' },
  { habits: ['--force'], option: '--force-project', what: 'move objects that name another project into -p' },
  { habits: ['--prune-allowlist', '--prune-whitelist'], option: '--prune-kind', what: 'prune only objects of this kind; repeatable' },
  { habits: ['-l', '--selector'], option: '--prune-tag', what: 'objects are selected for pruning by one tag' },
];

/** `did you mean -A / --all-projects (every project)?` for an unknown option of `cmd`, or ''. */
export function habitHint(cmd: Command, flag: string): string {
  const given = flag.replace(/=.*$/, '');
  const offers = HABITS.filter((h) => h.habits.includes(given)).flatMap((h) => {
    const o = cmd.options.find((x) => x.long === h.option);
    return o ? [`${o.flags.replace(', ', ' / ')} (${h.what})`] : [];
  });
  return offers.length ? `did you mean ${offers.join(' or ')}?` : '';
}

/** commander's error `str` of `cmd`, with the hint when it is an "unknown option" error. */
export function withHabitHint(cmd: Command, str: string): string {
  const flag = /unknown option '([^']+)'/.exec(str)?.[1];
  const hint = flag ? habitHint(cmd, flag) : '';
  return hint ? `${str.trimEnd()}; ${hint}\n` : str;
}
