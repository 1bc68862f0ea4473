import type { KindDescriptor } from '../../kinds/descriptor.js';
import type { ResourceOp } from '../resource-router.js';
import { MANAGER_HEADER, SKIP_UNCHANGED_HEADER, UNCHANGED_HEADER } from '../headers.js';
import type { QueryDoc, RouteDoc } from '../route-doc.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const DRY_RUN: QueryDoc = {
  name: 'dryRun',
  type: 'boolean',
  description: 'Authenticate, authorize and validate, answer as the real call would, store nothing',
};
const ETAG = { ETag: 'The object\'s version, `"<version>"`: send it back as If-Match' };
const FIELD_MANAGER: QueryDoc = {
  name: 'fieldManager',
  description: `Who makes this write (dashctl, web-ui, a pipeline's name; default api), recorded in the history and .../managers; the ${MANAGER_HEADER} header says the same`,
};
const UNCHANGED = {
  [UNCHANGED_HEADER]: `"true" when the body equals what is stored and ${SKIP_UNCHANGED_HEADER}: true was sent: nothing was written`,
};
const ERR = (description: string) => ({ description, schema: 'Error' });

/** The query parameters of a list (and of its watch stream). */
function listQuery(d: KindDescriptor, crossProject: boolean): QueryDoc[] {
  return [
    { name: 'name', description: 'Only objects whose name starts with this prefix' },
    ...(crossProject ? [{ name: 'project', description: 'Only this project' }] : []),
    ...(d.listFilters ?? []).map(
      (f): QueryDoc => ({ name: f.param, type: f.type, description: `Only objects whose ${f.path} equals this` }),
    ),
    { name: 'metadata_only', type: 'boolean', description: 'Items are `{kind, metadata, spec: {}}`' },
    {
      name: 'limit',
      type: 'integer',
      description: 'A page of at most this many items (1-10000); a `Link: <...>; rel="next"` header follows while more remain',
    },
    { name: 'continue', description: 'The token of the next page, from the Link header' },
    {
      name: 'watch',
      type: 'boolean',
      description: 'Stream changes as newline-delimited JSON events (application/x-ndjson) instead of answering a list',
    },
    {
      name: 'since',
      type: 'integer',
      description: 'With watch: replay every change after this revision, then go live (410 when older than the kept event log)',
    },
  ];
}

/**
 * The OpenAPI description of one resource route of kind `d`, from its descriptor: which query
 * parameters lists take, whether the kind keeps history, whether creating it is a sign-up.
 */
export function resourceDoc(d: KindDescriptor, op: ResourceOp): RouteDoc {
  const tag = d.kind;
  const masked = d.sensitive?.length ? ` Sensitive fields (${d.sensitive.join(', ')}) are answered as "<secret>".` : '';
  const body = {
    description: `A ${d.kind} (JSON or YAML); server-owned metadata (createdAt, updatedAt, version) is ignored`,
    schema: d.kind,
    required: true,
  };
  const one = { description: `The ${d.kind}.${masked}`, schema: d.kind, headers: ETAG };
  switch (op) {
    case 'list':
    case 'listAll':
      return {
        tag,
        summary:
          op === 'listAll'
            ? `Lists ${d.kind} objects across the projects the caller may read`
            : d.scope === 'project'
              ? `Lists the ${d.kind} objects of a project`
              : `Lists ${d.kind} objects`,
        description: `Sorted by project, then name (byte-wise).${masked}`,
        query: listQuery(d, op === 'listAll'),
        responses: {
          200: {
            description: 'The objects (a JSON array), or with watch=true a stream of WatchEvent lines',
            schema: { type: 'array', items: ref(d.kind) },
            headers: { Link: 'The next page, `<url>; rel="next"`, while more remain' },
          },
          410: ERR('With watch=true: `since` is older than the kept event log; list again'),
          429: ERR('With watch=true: the caller holds watch.max_streams_per_user open streams already; `Retry-After`'),
        },
      };
    case 'create':
    case 'createAny':
      return {
        tag,
        summary: op === 'createAny' ? `Creates a ${d.kind} in the project named by its metadata.project` : `Creates a ${d.kind}`,
        ...(d.anonymousCreateUnless
          ? {
              description: `Anonymous callers may create one (sign-up) unless \`${d.anonymousCreateUnless}\` is true; sign-ups are limited per client address (security.authentication.sign_up_rate_limit).`,
            }
          : {}),
        query: [DRY_RUN, FIELD_MANAGER],
        body,
        responses: {
          200: { ...one, description: `The stored ${d.kind} (200, as Perses; not 201)` },
          400: ERR('Invalid: every problem with its JSON path (`details`)'),
          409: ERR(
            d.anonymousCreateUnless
              ? 'An object of this name exists, or (a sign-up) a stored binding or group names it'
              : 'An object of this name exists',
          ),
          ...(d.anonymousCreateUnless
            ? { 429: ERR('Too many sign-ups from this client address; `Retry-After` says when to try again') }
            : {}),
        },
      };
    case 'get':
      return { tag, summary: `Reads a ${d.kind}`, responses: { 200: one, 404: ERR('No such object') } };
    case 'update':
      return {
        tag,
        summary: `Replaces a ${d.kind} (never creates one)`,
        description:
          'With If-Match, only when the stored version is that one. An empty metadata.name or project is taken from the path; a different one is a 400.',
        query: [DRY_RUN, FIELD_MANAGER],
        body,
        responses: {
          200: { ...one, headers: { ...ETAG, ...UNCHANGED } },
          400: ERR('Invalid'),
          404: ERR('No such object'),
          412: ERR('If-Match names another version than the stored one'),
        },
      };
    case 'delete':
      return {
        tag,
        summary: `Deletes a ${d.kind}${d.isProjectScope ? ' and everything in it, in one atomic write' : ''}`,
        query: [DRY_RUN, FIELD_MANAGER],
        responses: {
          204: { description: 'Deleted' },
          404: ERR('No such object'),
          412: ERR('If-Match names another version than the stored one'),
        },
      };
    case 'managers':
      return {
        tag,
        summary: `The field managers that wrote this ${d.kind}: each one's latest write, newest first`,
        description:
          'A write names its manager with the X-Dashplane-Manager header or ?fieldManager= (default api); dashctl sends dashctl, the web UI web-ui.',
        responses: { 200: { description: 'Managers', schema: { type: 'array', items: ref('ManagerEntry') } }, 404: ERR('No such object') },
      };
    case 'versions':
      return {
        tag,
        summary: `The kept earlier versions of a ${d.kind}, newest first`,
        responses: {
          200: { description: 'Versions', schema: { type: 'array', items: ref('VersionEntry') } },
          404: ERR('No such object or history'),
        },
      };
    case 'version':
      return {
        tag,
        summary: `A ${d.kind} as it was at one version`,
        responses: { 200: { description: `The ${d.kind} at that version`, schema: d.kind }, 404: ERR('That version is not kept') },
      };
    case 'deleted':
      return {
        tag,
        summary: `Deleted ${d.kind} objects${d.scope === 'project' ? ' of a project' : ''} whose history is kept, most recently changed first`,
        description: 'Each with its last version; POST .../{name}/versions/{version}/restore brings one back.',
        responses: { 200: { description: 'Deleted objects', schema: { type: 'array', items: ref('DeletedEntry') } } },
      };
    case 'restore':
      return {
        tag,
        summary: `Makes an earlier version of a ${d.kind} the new latest one (also brings back a deleted object)`,
        description:
          'Recorded as made by the field manager restore. With If-Match, only when the object is at that version (a deleted one matches none).',
        query: [DRY_RUN],
        responses: {
          200: {
            ...one,
            headers: { ...ETAG, ...UNCHANGED },
            description: `The ${d.kind} as stored now (its version counter still goes up)`,
          },
          404: ERR('That version is not kept'),
          412: ERR('If-Match names another version than the stored one'),
        },
      };
  }
}

/** The request headers a resource route takes, besides credentials. */
export function requestHeaders(op: ResourceOp): { name: string; description: string }[] {
  const ifMatch = { name: 'If-Match', description: 'Write only when the stored version is this ETag ("3"); else 412' };
  const manager = { name: MANAGER_HEADER, description: 'Who makes this write (as ?fieldManager=)' };
  const skip = {
    name: SKIP_UNCHANGED_HEADER,
    description: `"true": a body equal to what is stored writes nothing (no new version, history entry or event) and is answered with ${UNCHANGED_HEADER}: true; without it such a write is a write like any other`,
  };
  switch (op) {
    case 'create':
    case 'createAny':
      return [manager];
    case 'update':
      return [ifMatch, manager, skip];
    case 'delete':
      return [ifMatch, manager];
    case 'restore':
      return [ifMatch, skip];
    default:
      return [];
  }
}
