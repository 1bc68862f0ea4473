import { expect } from 'chai';
import { firstKeyword } from './statement.js';

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
  for (const [text, keyword] of cases) it(`${JSON.stringify(text)} -> ${JSON.stringify(keyword)}`, () => expect(firstKeyword(text)).to.equal(keyword));
});
