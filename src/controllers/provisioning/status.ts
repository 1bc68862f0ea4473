import type { ProblemType } from './apply.js';

/** Something a source holds that was not written as it says, with where it is. */
export interface ProvisioningProblem {
  type: ProblemType;
  /** The file, relative to the folder (or the repository's path); absent for the source itself (a fetch). */
  file?: string;
  /** The resource's position in its file, when the file holds several. */
  index?: number;
  /** The line of its YAML document, when the file holds several documents. */
  line?: number;
  /** `Dashboard demo/cpu`. */
  object?: string;
  message: string;
  /** When this problem was first seen (it is reported once in the log, and here while it lasts). */
  since: string;
}

/** What a provisioning source did at its last pass (GET /api/v1/admin/provisioning, /metrics). */
export interface SourceStatus {
  /** The folder, or `git:URL#REF` (with `:PATH` when a path inside the repository is read). */
  source: string;
  type: 'folder' | 'git';
  /** How often it is read (a duration as configured). */
  interval: string;
  /** The commit checked out (Git sources). */
  commit?: string;
  /** Passes completed since the server started. */
  passes: number;
  lastPassAt?: string;
  lastPassSeconds?: number;
  /** Files and resources it held at its last read. */
  files: number;
  objects: number;
  /** Writes it made since the server started. */
  writes: { created: number; updated: number; takenBack: number };
  /** What its last pass could not write, and why. */
  problems: ProvisioningProblem[];
}

/** `team/a.yaml#2:14`: a problem's place in its source. */
export function placeOf(p: Pick<ProvisioningProblem, 'file' | 'index' | 'line'>): string {
  if (p.file === undefined) return '';
  return `${p.file}${p.index !== undefined ? `#${p.index}` : ''}${p.line !== undefined ? `:${p.line}` : ''}`;
}

/** The identity of a problem across passes (its `since` kept while it lasts). */
export function problemKey(p: ProvisioningProblem): string {
  return `${p.type}\0${placeOf(p)}\0${p.object ?? ''}\0${p.message}`;
}
