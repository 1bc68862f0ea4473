import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { keyIdOf } from '../src/secrets/secret-box.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import { LevelStore } from '../src/storage/level-store.js';
import { PostgresStore } from '../src/storage/postgres-store.js';
import { startPostgres, withClient } from './helpers/postgres.js';
import { runToExit, spawnServer, type ServerProcess } from './helpers/process.js';
import { tempDir } from './helpers/server.js';
import { WatchStream } from './helpers/watch.js';
import { skipWithoutProgram } from './helpers/programs.js';

const CANARY = `CANARY-${randomBytes(6).toString('hex')}`;
const json = (method: string, body?: unknown) => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body ? { body: JSON.stringify(body) } : {}),
});
const hexKey = () => randomBytes(32).toString('hex');

async function storedSecrets(dataDir: string): Promise<{ kind: string; name: string; spec: any }[]> {
  const store = new LevelStore(dataDir);
  await store.open();
  try {
    const out = [];
    for (const kind of ['Secret', 'GlobalSecret'])
      for (const o of await store.list({ kind })) out.push({ kind, name: o.metadata.name, spec: o.spec as any });
    return out;
  } finally {
    await store.close();
  }
}

/** Every record of a LevelDB directory (objects, history, events, everything), as [key, value] texts. */
async function allRecords(dataDir: string): Promise<[string, string][]> {
  const db = new Level<string, string>(dataDir);
  await db.open();
  try {
    return await db.iterator().all();
  } finally {
    await db.close();
  }
}

/** The records holding a value sealed with `key`, by key (none is the goal of a rotation). */
async function sealedWith(dataDir: string, key: string): Promise<string[]> {
  const mark = `v1:${keyIdOf(Buffer.from(key, 'hex'))}:`;
  return (await allRecords(dataDir)).filter(([, v]) => v.includes(mark)).map(([k]) => JSON.stringify(k));
}

/** Every file below `dir`, as raw bytes. */
function rawFiles(dir: string): Buffer[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? rawFiles(p) : [readFileSync(p)];
  });
}

async function seed(url: string): Promise<void> {
  expect((await fetch(`${url}/api/v1/projects`, json('POST', { kind: 'Project', metadata: { name: 'p' }, spec: {} }))).status).to.equal(
    200,
  );
  for (const name of ['s1', 's2']) {
    const r = await fetch(
      `${url}/api/v1/projects/p/secrets`,
      json('POST', { kind: 'Secret', metadata: { name }, spec: { basicAuth: { username: 'u', password: CANARY } } }),
    );
    expect(r.status).to.equal(200);
  }
  const g = await fetch(
    `${url}/api/v1/globalsecrets`,
    json('POST', {
      kind: 'GlobalSecret',
      metadata: { name: 'g' },
      spec: { authorization: { type: 'Bearer', credentials: CANARY }, tlsConfig: { key: CANARY, ca: 'CA-PEM' } },
    }),
  );
  expect(g.status).to.equal(200);
}

async function stop(srv: ServerProcess): Promise<void> {
  srv.child.kill('SIGTERM');
  expect(await srv.exited).to.equal(0);
}

describe('secrets at rest (SECRET-*)', function () {
  this.timeout(60_000);

  it('SECRET-04/05: no canary in any data file; every sensitive field is v1:<keyId>:..., different for equal values', async () => {
    const dir = tempDir();
    try {
      const key = hexKey();
      const srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: key } });
      await seed(srv.url);
      await stop(srv);
      for (const raw of rawFiles(dir.path)) {
        expect(raw.includes(CANARY)).to.equal(false);
        expect(raw.includes(Buffer.from(CANARY).toString('base64'))).to.equal(false);
        expect(raw.includes(Buffer.from(CANARY).toString('hex'))).to.equal(false);
      }
      const secrets = await storedSecrets(dir.path);
      const values = [
        secrets[0].spec.basicAuth.password,
        secrets[1].spec.basicAuth.password,
        secrets[2].spec.authorization.credentials,
        secrets[2].spec.tlsConfig.key,
      ];
      const id = keyIdOf(Buffer.from(key, 'hex'));
      for (const v of values) expect(v).to.match(new RegExp(`^v1:${id}:`));
      expect(new Set(values).size, 'random nonce per value').to.equal(values.length);
    } finally {
      dir.remove();
    }
  });

  it('SECRET-08: a wrong key, or a lost generated key, for existing secrets stops the server with a clear message', async () => {
    const dir = tempDir();
    try {
      const srv = await spawnServer({ dataDir: dir.path });
      expect(statSync(join(dir.path, 'encryption.key')).mode & 0o777).to.equal(0o600);
      await seed(srv.url);
      await stop(srv);
      const wrong = await runToExit(['--listen', '127.0.0.1:0'], {
        DASHPLANE_DATABASE_LEVEL_PATH: dir.path,
        DASHPLANE_ENCRYPTION_KEY: hexKey(),
      });
      expect(wrong.code).to.equal(1);
      expect(wrong.output).to.match(/cannot be decrypted with the configured keys/);
      expect(wrong.output).to.not.include(CANARY);
      rmSync(join(dir.path, 'encryption.key'));
      const lost = await runToExit(['--listen', '127.0.0.1:0'], { DASHPLANE_DATABASE_LEVEL_PATH: dir.path });
      expect(lost.code).to.equal(1);
      expect(lost.output).to.match(/refusing to start/);
    } finally {
      dir.remove();
    }
  });

  it('SECRET-09: rotation re-encrypts everything with the new key; the old key can then go', async () => {
    const dir = tempDir();
    try {
      const k1 = hexKey();
      const k2 = hexKey();
      const env = { DASHPLANE_DATABASE_LEVEL_PATH: dir.path };
      let srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: k1 } });
      await seed(srv.url);
      await stop(srv);
      const withoutOld = await runToExit(['--listen', '127.0.0.1:0'], { ...env, DASHPLANE_ENCRYPTION_KEY: k2 });
      expect(withoutOld.code, 'k2 alone cannot read k1 data').to.equal(1);
      const rotated = await runToExit(['secrets', 'rotate'], {
        ...env,
        DASHPLANE_ENCRYPTION_KEY: k2,
        DASHPLANE_SECURITY_PREVIOUS_ENCRYPTION_KEYS: JSON.stringify([k1]),
      });
      expect(rotated.code, rotated.output).to.equal(0);
      expect(rotated.output).to.match(/5 values in 3 of 3 objects re-encrypted/);
      const id2 = keyIdOf(Buffer.from(k2, 'hex'));
      for (const s of await storedSecrets(dir.path)) {
        expect(JSON.stringify(s.spec)).to.not.include(`v1:${keyIdOf(Buffer.from(k1, 'hex'))}:`);
        expect(JSON.stringify(s.spec)).to.include(`v1:${id2}:`);
      }
      // no record at all, the event log's copies included, holds a value sealed with k1
      expect(await sealedWith(dir.path, k1), 'records still sealed with k1').to.deep.equal([]);
      expect(rotated.output).to.match(/re-encrypted the copies of secrets in \d+ retained events/);
      srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: k2 } });
      const r = await fetch(`${srv.url}/api/v1/projects/p/secrets/s1`);
      expect(((await r.json()) as any).spec.basicAuth.password).to.equal('<secret>');
      await stop(srv);
      const again = await runToExit(['secrets', 'rotate'], { ...env, DASHPLANE_ENCRYPTION_KEY: k2 });
      expect(again.output).to.match(/0 values in 0 of 3 objects/);
    } finally {
      dir.remove();
    }
  });

  it('SECRET-09: an event still sealed with a key already removed (a rotation by an older dashplane) does not stop the next rotation, and goes', async () => {
    const dir = tempDir();
    try {
      const [k1, k2, k3] = [hexKey(), hexKey(), hexKey()];
      const env = { DASHPLANE_DATABASE_LEVEL_PATH: dir.path };
      const srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: k1 } });
      await seed(srv.url);
      await stop(srv);
      // what an older rotation left: the event log's copies still sealed with k1
      const mark1 = `v1:${keyIdOf(Buffer.from(k1, 'hex'))}:`;
      const oldEvents = (await allRecords(dir.path)).filter(([k, v]) => k.startsWith('e\u0000') && v.includes(mark1));
      expect(oldEvents.length).to.be.greaterThan(0);
      const first = await runToExit(['secrets', 'rotate'], {
        ...env,
        DASHPLANE_ENCRYPTION_KEY: k2,
        DASHPLANE_SECURITY_PREVIOUS_ENCRYPTION_KEYS: JSON.stringify([k1]),
      });
      expect(first.code, first.output).to.equal(0);
      const db = new Level<string, string>(dir.path);
      await db.batch(oldEvents.map(([key, value]) => ({ type: 'put' as const, key, value })));
      await db.close();
      // k1 is gone from the configuration: the objects are all k2, only those event copies are k1
      const next = await runToExit(['secrets', 'rotate'], {
        ...env,
        DASHPLANE_ENCRYPTION_KEY: k3,
        DASHPLANE_SECURITY_PREVIOUS_ENCRYPTION_KEYS: JSON.stringify([k2]),
      });
      expect(next.code, next.output).to.equal(0);
      expect(next.output).to.match(/sealed with keys no longer configured were replaced/);
      expect(await sealedWith(dir.path, k1)).to.deep.equal([]);
      expect(await sealedWith(dir.path, k2)).to.deep.equal([]);
      const back = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: k3 } });
      try {
        // a watch from the start replays the replaced copies, masked like any other
        const w = await WatchStream.must(`${back.url}/api/v1/projects/p/secrets?watch=true&since=1`);
        try {
          const e = await w.waitForEvent('the ADDED event of s1', (x) => x.type === 'ADDED' && x.object?.metadata?.name === 's1');
          expect((e.object as any).spec.basicAuth.password).to.equal('<secret>');
        } finally {
          await w.close();
        }
        expect((await fetch(`${back.url}/api/v1/projects/p/secrets/s1`)).status, 'k3 alone reads everything').to.equal(200);
      } finally {
        await stop(back);
      }
    } finally {
      dir.remove();
    }
  });

  it('SECRET-09 on PostgreSQL: `secrets rotate` re-encrypts the database the configuration names (it used to open ./data)', async function () {
    skipWithoutProgram(this, 'postgresql');
    this.timeout(60_000);
    const cluster = await startPostgres();
    const dir = tempDir();
    try {
      const db = await cluster.createDatabase();
      const k1 = hexKey();
      const k2 = hexKey();
      const env = { DASHPLANE_DATABASE_POSTGRES_URL: db.url, DASHPLANE_DATABASE_LEVEL_PATH: join(dir.path, 'not-used') };
      let srv = await spawnServer({ dataDir: join(dir.path, 'not-used'), env: { ...env, DASHPLANE_ENCRYPTION_KEY: k1 } });
      await seed(srv.url);
      await stop(srv);
      const rotated = await runToExit(['secrets', 'rotate'], {
        ...env,
        DASHPLANE_ENCRYPTION_KEY: k2,
        DASHPLANE_SECURITY_PREVIOUS_ENCRYPTION_KEYS: JSON.stringify([k1]),
      });
      expect(rotated.code, rotated.output).to.equal(0);
      expect(rotated.output).to.match(/5 values in 3 of 3 objects re-encrypted/);
      const store = new PostgresStore({ url: db.url });
      await store.open();
      try {
        for (const kind of ['Secret', 'GlobalSecret']) {
          for (const o of await store.list({ kind }))
            expect(JSON.stringify(o.spec))
              .to.include(`v1:${keyIdOf(Buffer.from(k2, 'hex'))}:`)
              .and.not.include(`v1:${keyIdOf(Buffer.from(k1, 'hex'))}:`);
        }
      } finally {
        await store.close();
      }
      const { rows } = await withClient(db.url, (c) =>
        c.query('SELECT revision FROM dashplane_events WHERE object::text LIKE $1', [`%v1:${keyIdOf(Buffer.from(k1, 'hex'))}:%`]),
      );
      expect(rows, 'events still holding values sealed with k1').to.deep.equal([]);
      srv = await spawnServer({ dataDir: join(dir.path, 'not-used'), env: { ...env, DASHPLANE_ENCRYPTION_KEY: k2 } });
      expect((await fetch(`${srv.url}/api/v1/projects/p/secrets/s1`)).status, 'the new key alone reads everything').to.equal(200);
      await stop(srv);
      const noKey = await runToExit(['secrets', 'rotate'], env);
      expect(noKey.code).to.equal(1);
      expect(noKey.output).to.match(/every replica needs the same key/);
    } finally {
      dir.remove();
      await cluster.stop();
    }
  });

  it('SECRET-07 (at rest): ciphertexts swapped between records do not decrypt; the server still starts when the key is proven', async () => {
    const dir = tempDir();
    try {
      const key = hexKey();
      const srv = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: key } });
      await seed(srv.url);
      await stop(srv);
      const store = new LevelStore(dir.path);
      await store.open();
      const a = (await store.get({ kind: 'Secret', project: 'p', name: 's1' }))!;
      const b = (await store.get({ kind: 'Secret', project: 'p', name: 's2' }))!;
      const pa = (a.spec as any).basicAuth.password;
      (a.spec as any).basicAuth.password = (b.spec as any).basicAuth.password;
      (b.spec as any).basicAuth.password = pa;
      await store.update(a, { expectedVersion: 0 });
      await store.update(b, { expectedVersion: 0 });
      await store.close();
      const { SecretBox, DecryptError } = await import('../src/secrets/secret-box.js');
      const { unseal } = await import('../src/secrets/sealing.js');
      const d = buildKindRegistry().byName('Secret')!;
      expect(() => unseal(d, a, new SecretBox(Buffer.from(key, 'hex')))).to.throw(DecryptError);
      const again = await spawnServer({ dataDir: dir.path, env: { DASHPLANE_ENCRYPTION_KEY: key } });
      expect(again.output()).to.match(/2 stored secret values do not decrypt/);
      await stop(again);
    } finally {
      dir.remove();
    }
  });
});
