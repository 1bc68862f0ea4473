import type { Argument, Command, Option } from 'commander';

/** Values of arguments and options by their name (`kind`, `context`), computed when asked. */
export type ValueSources = Record<string, () => string[]>;

/**
 * What to offer for the word under the cursor, from the commander tree itself: `words` are the
 * words after the program name, the last one being the (possibly empty) word being completed.
 * Subcommands, then long options (the command's and its parents'), option choices, argument
 * choices, and dynamic values by argument or option name (`values`). An empty answer lets the
 * shell complete file names.
 */
export function complete(program: Command, words: readonly string[], values: ValueSources = {}): string[] {
  let cmd = program;
  let positional = 0;
  let pending: Option | undefined;
  const cur = words.length ? words[words.length - 1] : '';
  for (const w of words.slice(0, -1)) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      const opt = w.includes('=') ? undefined : findOption(cmd, w);
      if (opt && (opt.required || opt.optional)) pending = opt;
      continue;
    }
    const sub = positional === 0 ? findCommand(cmd, w) : undefined;
    if (sub) {
      cmd = sub;
      continue;
    }
    positional++;
  }
  return matching(candidates(cmd, positional, pending, cur, values), cur);
}

function candidates(cmd: Command, positional: number, pending: Option | undefined, cur: string, values: ValueSources): string[] {
  if (pending) return pending.argChoices ?? values[pending.attributeName()]?.() ?? [];
  if (cur.startsWith('-')) return optionsOf(cmd).flatMap((o) => (o.long ? [o.long] : []));
  const subs = cmd.createHelp().visibleCommands(cmd);
  if (subs.length && positional === 0) return subs.map((c) => c.name());
  const args = cmd.registeredArguments;
  const last = args[args.length - 1] as Argument | undefined;
  const arg = args[positional] ?? (last?.variadic ? last : undefined);
  if (!arg) return [];
  return arg.argChoices ?? values[arg.name()]?.() ?? [];
}

/** Visible options of a command and every command above it (program options apply everywhere). */
function optionsOf(cmd: Command): Option[] {
  const seen = new Set<string>();
  const out: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.createHelp().visibleOptions(c)) {
      const key = o.long ?? o.short ?? '';
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(o);
    }
  }
  return out;
}

function findOption(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
}

function findCommand(cmd: Command, name: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

function matching(list: readonly string[], prefix: string): string[] {
  return [...new Set(list.filter((x) => x.startsWith(prefix)))];
}
