import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/server.js';
import { decodeKey, GENERATED_KEY_FILE, loadKeyRing } from './keys.js';

function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('auth/keys', () => {
  const dir = tempDir('dashplane-keys-');
  after(() => dir.remove());

  describe('decodeKey', () => {
    const key = randomBytes(32);

    it('accepts 64 hex characters (either case, surrounding whitespace ignored)', () => {
      expect(decodeKey(key.toString('hex'), 'setting').equals(key)).to.equal(true);
      expect(decodeKey(key.toString('hex').toUpperCase(), 'setting').equals(key)).to.equal(true);
      expect(decodeKey(`  ${key.toString('hex')}\n`, 'setting').equals(key)).to.equal(true);
    });

    it('accepts a 32-byte key in base64 (padded or not) and base64url', () => {
      expect(decodeKey(key.toString('base64'), 'setting').equals(key)).to.equal(true);
      expect(decodeKey(key.toString('base64').replace(/=+$/, ''), 'setting').equals(key)).to.equal(true);
      expect(decodeKey(key.toString('base64url'), 'setting').equals(key)).to.equal(true);
    });

    it("accepts Perses' form: a string of exactly 32 bytes, used as it is", () => {
      const perses = '=tW$56zytgB&3jN2E%7-+qrGZE?v6LCc';
      expect(decodeKey(perses, 'setting').equals(Buffer.from(perses))).to.equal(true);
      expect(decodeKey(`${perses}\n`, 'setting').equals(Buffer.from(perses)), 'a key file ends with a newline').to.equal(true);
      expect(decodeKey('é'.repeat(16), 'setting')).to.have.length(32);
      for (const near of [perses.slice(1), `${perses}x`])
        expect(
          thrown(() => decodeKey(near, 'setting')),
          near,
        ).to.match(/exactly 32 bytes.*it is 3[13] bytes/);
    });

    it('rejects everything else with a message naming the setting', () => {
      const bad = [
        '',
        'secret',
        key.toString('hex').slice(0, 63),
        `${key.toString('hex')}0`,
        `${key.toString('hex').slice(0, 62)}zz`,
        randomBytes(31).toString('base64'),
        randomBytes(33).toString('base64'),
        randomBytes(64).toString('base64'),
        `${key.toString('base64').slice(0, 42)}!=`,
      ];
      for (const text of bad) {
        const msg = thrown(() => decodeKey(text, 'security.encryption_key (or DASHPLANE_ENCRYPTION_KEY)'));
        expect(msg, JSON.stringify(text)).to.include('security.encryption_key (or DASHPLANE_ENCRYPTION_KEY)');
        expect(msg).to.match(/32-byte key/);
        if (text.length > 8) expect(msg, 'the message must not echo the key').to.not.include(text.trim());
      }
    });
  });

  describe('loadKeyRing', () => {
    it('without a key: generates one file with mode 0600 once, then reuses it', () => {
      const dataDir = join(dir.path, 'generated', 'data');
      const first = loadKeyRing({ dataDir });
      const file = join(dataDir, GENERATED_KEY_FILE);
      expect(existsSync(file)).to.equal(true);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(first.source).to.equal(`${file} (generated now)`);
      const content = readFileSync(file, 'utf8');
      expect(content.trim()).to.match(/^[0-9a-f]{64}$/);

      const second = loadKeyRing({ dataDir });
      expect(readFileSync(file, 'utf8'), 'the file is not rewritten').to.equal(content);
      expect(second.source).to.equal(file);
      expect(second.accessTokenKey.equals(first.accessTokenKey)).to.equal(true);
      expect(second.refreshTokenKey.equals(first.refreshTokenKey)).to.equal(true);
    });

    it('derives different 64-byte access and refresh keys, none equal to the master key', () => {
      const master = randomBytes(32);
      const ring = loadKeyRing({ key: master.toString('hex'), dataDir: join(dir.path, 'unused') });
      expect(ring.accessTokenKey).to.have.length(64);
      expect(ring.refreshTokenKey).to.have.length(64);
      expect(ring.accessTokenKey.equals(ring.refreshTokenKey)).to.equal(false);
      expect(ring.accessTokenKey.includes(master)).to.equal(false);
      expect(ring.source).to.equal('security.encryption_key');
      expect(existsSync(join(dir.path, 'unused', GENERATED_KEY_FILE)), 'a configured key generates no file').to.equal(false);
      // Deterministic: the same master key gives the same keys (hex or base64).
      const again = loadKeyRing({ key: master.toString('base64'), dataDir: join(dir.path, 'unused') });
      expect(again.accessTokenKey.equals(ring.accessTokenKey)).to.equal(true);
      expect(again.refreshTokenKey.equals(ring.refreshTokenKey)).to.equal(true);
      // Another master key gives other keys.
      const other = loadKeyRing({ key: randomBytes(32).toString('hex'), dataDir: join(dir.path, 'unused') });
      expect(other.accessTokenKey.equals(ring.accessTokenKey)).to.equal(false);
    });

    it('reads encryption_key_file; the key setting wins over the file', () => {
      const master = randomBytes(32);
      const file = join(dir.path, 'master.key');
      writeFileSync(file, `${master.toString('hex')}\n`, { mode: 0o600 });
      const fromFile = loadKeyRing({ keyFile: file, dataDir: join(dir.path, 'unused2') });
      const fromKey = loadKeyRing({ key: master.toString('hex'), dataDir: join(dir.path, 'unused2') });
      expect(fromFile.accessTokenKey.equals(fromKey.accessTokenKey)).to.equal(true);
      expect(fromFile.source).to.equal(file);
      const both = loadKeyRing({ key: randomBytes(32).toString('hex'), keyFile: file, dataDir: join(dir.path, 'unused2') });
      expect(both.accessTokenKey.equals(fromFile.accessTokenKey)).to.equal(false);
    });

    it('a key_file that does not exist is a clear error naming the setting and the file', () => {
      const missing = join(dir.path, 'no-such.key');
      const msg = thrown(() => loadKeyRing({ keyFile: missing, dataDir: join(dir.path, 'unused3') }));
      expect(msg).to.include('security.encryption_key_file');
      expect(msg).to.include(missing);
      expect(existsSync(join(dir.path, 'unused3', GENERATED_KEY_FILE)), 'no fallback to a generated key').to.equal(false);
    });

    it('a key_file with a malformed key is an error naming the file', () => {
      const file = join(dir.path, 'bad.key');
      writeFileSync(file, 'not a key\n');
      expect(thrown(() => loadKeyRing({ keyFile: file, dataDir: dir.path }))).to.include(file);
      expect(thrown(() => loadKeyRing({ key: 'short', dataDir: dir.path }))).to.include('security.encryption_key');
    });

    it('a corrupted generated key file is an error, never silently replaced', () => {
      const dataDir = join(dir.path, 'corrupt');
      loadKeyRing({ dataDir });
      const file = join(dataDir, GENERATED_KEY_FILE);
      writeFileSync(file, 'garbage');
      expect(thrown(() => loadKeyRing({ dataDir }))).to.include(file);
      expect(readFileSync(file, 'utf8')).to.equal('garbage');
    });
  });
});
