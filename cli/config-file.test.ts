import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contextNameFor, loadConfig } from './config-file.js';
import { CliError } from './errors.js';

describe('dashctl configuration file', () => {
  it('reads a configuration file of older dashctl versions as the context "default"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashctl-units-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ url: 'http://a:1', project: 'p', accessToken: 't', unknown: 1 }));
      expect(loadConfig(file)).to.deep.equal({
        currentContext: 'default',
        contexts: { default: { url: 'http://a:1', project: 'p', accessToken: 't' } },
      });
      writeFileSync(file, '{}');
      expect(loadConfig(file)).to.deep.equal({ contexts: {} });
      writeFileSync(file, JSON.stringify({ contexts: { a: 'x' } }));
      expect(() => loadConfig(file)).to.throw(CliError, '"contexts" must map context names to objects');
      expect(loadConfig(join(dir, 'none.json'))).to.deep.equal({ contexts: {} });
      expect(contextNameFor('http://127.0.0.1:8080', ['127.0.0.1:8080'])).to.equal('127.0.0.1:8080-2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
