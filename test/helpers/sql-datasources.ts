import { expect } from 'chai';
import type { ApiResponse } from './server.js';

/** An SQL datasource body named `name` with SQLProxy spec `spec`, of `kind` (Datasource, GlobalDatasource) and `plugin` (SQLDatasource, PostgresDatasource). */
export const sqlDatasource = (name: string, spec: Record<string, unknown>, kind = 'Datasource', plugin = 'SQLDatasource') => ({
  kind,
  metadata: { name },
  spec: { default: false, plugin: { kind: plugin, spec: { proxy: { kind: 'SQLProxy', spec } } } },
});

/** A Secret (or GlobalSecret) body whose basicAuth logs in as `dpreader` with `password`, and `extra` fields (tlsConfig). */
export const basicSecret = (name: string, password: string, o: { kind?: string; extra?: Record<string, unknown> } = {}) => ({
  kind: o.kind ?? 'Secret',
  metadata: { name },
  spec: { basicAuth: { username: 'dpreader', password }, ...(o.extra ?? {}) },
});

/** Awaits a response and asserts its status (200 unless told), showing the body when it differs. */
export async function ok(r: Promise<ApiResponse>, status = 200): Promise<ApiResponse> {
  const res = await r;
  expect(res.status, res.text).to.equal(status);
  return res;
}
