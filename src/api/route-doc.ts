/**
 * What a route tells the OpenAPI document about itself. Every route that is not a kind's
 * resource route carries one in `config.doc`, next to its handler, so the document is made from
 * the routes the server really mounts (resource routes are described from the kind registry).
 */
export interface RouteDoc {
  /** One line: what the route does. */
  summary: string;
  description?: string;
  /** The group it is listed under (e.g. "System", "Authentication", "Proxy"). */
  tag: string;
  /** Path parameters by name (`:slug` in the URL, `*` is called `path`). */
  params?: Record<string, string>;
  query?: QueryDoc[];
  body?: BodyDoc;
  /** Responses by status; errors not listed here are covered by the shared error response. */
  responses: Record<string, ResponseDoc>;
}

export interface QueryDoc {
  name: string;
  description: string;
  type?: 'string' | 'boolean' | 'integer';
  required?: boolean;
}

export interface BodyDoc {
  description: string;
  /** Media types accepted (default application/json and application/yaml). */
  types?: string[];
  /** A JSON Schema, or the name of a component schema. */
  schema?: Record<string, unknown> | string;
  required?: boolean;
}

export interface ResponseDoc {
  description: string;
  /** Media type of the body (default application/json); omit `schema` and `type` for no body. */
  type?: string;
  /** A JSON Schema, or the name of a component schema. */
  schema?: Record<string, unknown> | string;
  /** Response headers worth naming, by name: description. */
  headers?: Record<string, string>;
}

/** `{config: {doc}}` for a route, with `anonymous` when callers need no credentials. */
export function documented(
  doc: RouteDoc,
  anonymous?: boolean | ((url: string) => boolean),
): { config: { doc: RouteDoc; anonymous?: boolean | ((url: string) => boolean) } } {
  return { config: { doc, ...(anonymous !== undefined ? { anonymous } : {}) } };
}
