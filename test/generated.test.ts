import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '../scripts/generate.js';
import { PACKAGE_ROOT } from '../src/paths.js';

describe('generated code', () => {
  it('src/kinds/generated/ is what `npm run gen` makes from schemas/ (run it after editing a schema)', async function () {
    this.timeout(60_000);
    const files = await generate();
    expect(files.size).to.be.greaterThan(1);
    for (const [file, content] of files) {
      const onDisk = readFileSync(join(PACKAGE_ROOT, file), 'utf8');
      expect(onDisk === content, `${file} is stale: run npm run gen and commit the result`).to.equal(true);
    }
  });
});
