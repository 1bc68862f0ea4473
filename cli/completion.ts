import type { Argument, Command, Option } from 'commander';

/** The command line as far as the word being completed: what a value source may complete from. */
export interface Line {
  /** The (sub)command the words name. */
  command: Command;
  /** Its positional arguments before the word being completed. */
  args: string[];
  /** The values of the options given, by attribute name (`project`, `context`), program options included. */
  options: Record<string, string>;
  /** The (possibly empty) word being completed. */
  current: string;
}

/** Values of arguments and options by their name (`kind`, `context`, `project`, `names`), computed when asked. */
export type ValueSources = Record<string, (line: Line) => string[] | Promise<string[]>>;

/**
 * What to offer for the word under the cursor, from the commander tree itself: `words` are the
 * words after the program name, the last one being the (possibly empty) word being completed.
 * Subcommands, then long options (the command's and its parents'), option choices, argument
 * choices, and dynamic values by argument or option name (`values`, given the line: a source that
 * fails offers nothing). An empty answer lets the shell complete file names.
 */
export async function complete(program: Command, words: readonly string[], values: ValueSources = {}): Promise<string[]> {
  let cmd = program;
  let pending: Option | undefined;
  const args: string[] = [];
  const options: Record<string, string> = {};
  const current = words.length ? words[words.length - 1] : '';
  for (const w of words.slice(0, -1)) {
    if (pending) {
      options[pending.attributeName()] = w;
      pending = undefined;
      continue;
    }
    if (w.startsWith('-') && w.length > 1) {
      const [flag, value] = w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, undefined];
      const opt = findOption(cmd, flag);
      if (opt && value !== undefined) options[opt.attributeName()] = value;
      else if (opt && (opt.required || opt.optional)) pending = opt;
      continue;
    }
    const sub = args.length === 0 ? findCommand(cmd, w) : undefined;
    if (sub) {
      cmd = sub;
      continue;
    }
    args.push(w);
  }
  // `--project=te`: the value of the option, offered with the option in front
  const eq = !pending && current.startsWith('--') ? current.indexOf('=') : -1;
  const inline = eq > 0 ? findOption(cmd, current.slice(0, eq)) : undefined;
  if (inline && (inline.required || inline.optional)) {
    const value = current.slice(eq + 1);
    const found = await candidates({ command: cmd, args, options, current: value }, inline, values);
    return matching(found, value).map((v) => `${current.slice(0, eq + 1)}${v}`);
  }
  const line: Line = { command: cmd, args, options, current };
  return matching(await candidates(line, pending, values), current);
}

async function candidates(line: Line, pending: Option | undefined, values: ValueSources): Promise<string[]> {
  const { command: cmd, args, current } = line;
  const ask = async (name: string) => {
    try {
      return (await values[name]?.(line)) ?? [];
    } catch {
      return [];
    }
  };
  if (pending) return pending.argChoices ?? ask(pending.attributeName());
  if (current.startsWith('-')) return optionsOf(cmd).flatMap((o) => (o.long ? [o.long] : []));
  const subs = cmd.createHelp().visibleCommands(cmd);
  if (subs.length && args.length === 0) return subs.map((c) => c.name());
  const registered = cmd.registeredArguments;
  const last = registered[registered.length - 1] as Argument | undefined;
  const arg = registered[args.length] ?? (last?.variadic ? last : undefined);
  if (!arg) return [];
  return arg.argChoices ?? ask(arg.name());
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
