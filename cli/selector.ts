import { CliError } from './errors.js';

// biome-ignore lint/suspicious/noExplicitAny: objects of any kind as the server sent them
type Obj = Record<string, any>;

/**
 * `-l/--selector` as kubectl users write it, over tags: `gitops` (carries the tag), `!legacy` (does
 * not), comma-separated requirements that must all hold (`gitops,team=a,!legacy`; a tag written
 * `key=value` is matched as it is written).
 */
export function parseSelector(text: string): (o: Obj) => boolean {
  const requirements = text.split(',').map((r) => r.trim());
  const parsed = requirements.map((r) => {
    const negated = r.startsWith('!');
    const tag = (negated ? r.slice(1) : r).trim();
    if (!tag || /[()\s]/.test(tag) || /!=|==/.test(tag))
      throw new CliError(
        `-l ${text}: "${r}" is not a tag requirement; write TAG (carries it) or !TAG (does not), comma-separated: -l gitops,!legacy`,
      );
    return { tag, negated };
  });
  return (o) => {
    const tags: unknown[] = Array.isArray(o.metadata?.tags) ? o.metadata.tags : [];
    return parsed.every((r) => tags.includes(r.tag) !== r.negated);
  };
}
