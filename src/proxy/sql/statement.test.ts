import { expect } from 'chai';
import { fileWriteKeyword, firstKeyword } from './statement.js';

describe('firstKeyword: the statement a query starts with', () => {
  const cases: [string, string][] = [
    ['SELECT 1', 'SELECT'],
    ['  \n\tselect 1', 'SELECT'],
    ['-- a comment\nWITH x AS (SELECT 1) SELECT * FROM x', 'WITH'],
    ['/* outer /* nested */ still comment */ DELETE FROM t', 'DELETE'],
    ['((SELECT 1)) UNION (SELECT 2)', 'SELECT'],
    ['/* DELETE */ explain SELECT 1', 'EXPLAIN'],
    ['-- only a comment', ''],
    ['/* unterminated SELECT', ''],
    ['1; SELECT', ''],
    ['"SELECT" 1', ''],
  ];
  for (const [text, keyword] of cases)
    it(`${JSON.stringify(text)} -> ${JSON.stringify(keyword)}`, () => expect(firstKeyword(text)).to.equal(keyword));
});

describe("firstKeyword with MySQL's comments", () => {
  const cases: [string, string][] = [
    ['# a comment\nSELECT 1', 'SELECT'],
    ['-- a comment\nSELECT 1', 'SELECT'],
    ['--\nSELECT 1', 'SELECT'],
    // not a comment in MySQL: "--" needs a space after it
    ['--x\nSELECT 1', ''],
    // comments do not nest: the first */ ends it
    ['/* /* */ DROP TABLE t; -- */ SELECT 1', 'DROP'],
    // executable comments are code
    ['/*!40000 DELETE FROM t */ SELECT 1', ''],
    ['/*M!100100 DELETE FROM t */ SELECT 1', ''],
    ['/*+ MAX_EXECUTION_TIME(10) */ SELECT 1', 'SELECT'],
    ['/* a */ (SELECT 1)', 'SELECT'],
  ];
  for (const [text, keyword] of cases)
    it(`${JSON.stringify(text)} -> ${JSON.stringify(keyword)}`, () => expect(firstKeyword(text, 'mysql')).to.equal(keyword));
  it('PostgreSQL reads the same texts by its own rules', () => {
    expect(firstKeyword('/* /* */ DROP TABLE t; -- */ SELECT 1')).to.equal('SELECT');
    expect(firstKeyword('# a comment\nSELECT 1')).to.equal('');
  });
});

describe('fileWriteKeyword: INTO OUTFILE and DUMPFILE anywhere in a MySQL query', () => {
  it('finds the words in any case, in comments and strings too; not inside other words', () => {
    expect(fileWriteKeyword("SELECT * FROM t INTO OUTFILE '/tmp/x'")).to.equal('OUTFILE');
    expect(fileWriteKeyword("SELECT 1 /*! into\ndumpfile '/tmp/x' */")).to.equal('DUMPFILE');
    expect(fileWriteKeyword("SELECT 'outfile'")).to.equal('OUTFILE');
    expect(fileWriteKeyword('SELECT outfiles, my_outfile FROM t')).to.equal('');
    expect(fileWriteKeyword('SELECT 1 INTO @x')).to.equal('');
  });
});
