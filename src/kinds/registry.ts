import { ApiError } from '../errors.js';
import type { KindDescriptor, Scope } from './descriptor.js';

/** The only list of kinds: built once from descriptors, frozen, looked up case-insensitively. */
export class KindRegistry {
  private readonly byKind = new Map<string, KindDescriptor>();
  private readonly byPlural = new Map<string, KindDescriptor>();
  private readonly byShort = new Map<string, KindDescriptor>();
  /** The kind whose objects are projects (exactly one descriptor has `isProjectScope`). */
  readonly projectKind: KindDescriptor;
  /** Kind name -> scope, for hooks; also the names permissions may grant that are not kinds of objects (`AuditEvent`). */
  readonly scopes: ReadonlyMap<string, Scope>;

  constructor(descriptors: readonly KindDescriptor[], permissionOnly: Readonly<Record<string, Scope>> = {}) {
    for (const d of descriptors) {
      if (this.byKind.has(d.kind.toLowerCase()) || this.byPlural.has(d.plural)) throw new Error(`kind ${d.kind} registered twice`);
      if (d.plural !== d.plural.toLowerCase()) throw new Error(`plural of ${d.kind} must be lower case`);
      this.byKind.set(d.kind.toLowerCase(), Object.freeze(d));
      this.byPlural.set(d.plural, d);
    }
    for (const d of descriptors) {
      for (const s of d.shortNames ?? []) {
        if (s !== s.toLowerCase() || this.byShort.has(s) || this.byKind.has(s) || this.byPlural.has(s))
          throw new Error(`short name "${s}" of ${d.kind} must be lower case and name no other kind`);
        this.byShort.set(s, this.byKind.get(d.kind.toLowerCase())!);
      }
    }
    const owners = descriptors.filter((d) => d.isProjectScope);
    if (owners.length !== 1 || owners[0].scope !== 'global') throw new Error('exactly one global kind must have isProjectScope');
    this.projectKind = owners[0];
    this.scopes = new Map([...descriptors.map((d) => [d.kind, d.scope] as const), ...Object.entries(permissionOnly)]);
    Object.freeze(this);
  }

  all(): KindDescriptor[] {
    return [...this.byKind.values()];
  }

  /** By kind name, case-insensitively (`globalrole` -> GlobalRole). */
  byName(kind: string): KindDescriptor | undefined {
    return this.byKind.get(kind.toLowerCase());
  }

  /** By plural path segment, case-insensitively (`globalRoles` -> GlobalRole). */
  byPluralName(plural: string): KindDescriptor | undefined {
    return this.byPlural.get(plural.toLowerCase());
  }

  /** By short name (`gds` -> GlobalDatasource), case-insensitively. */
  byShortName(short: string): KindDescriptor | undefined {
    return this.byShort.get(short.toLowerCase());
  }

  /** Every short name with its kind, in registry order. */
  shortNames(): [string, KindDescriptor][] {
    return [...this.byShort];
  }

  /** Kinds that live inside a project. */
  projectScoped(): KindDescriptor[] {
    return this.all().filter((d) => d.scope === 'project');
  }

  /** Like byPluralName but a 404 naming the path segment when unknown. */
  requirePlural(plural: string): KindDescriptor {
    const d = this.byPluralName(plural);
    if (!d) throw new ApiError('NotFound', `unknown resource type "${plural}"`);
    return d;
  }
}
