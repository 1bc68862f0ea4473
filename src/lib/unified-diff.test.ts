import { expect } from 'chai';
import { editScript, unifiedDiff } from './unified-diff.js';

describe('unifiedDiff', () => {
  const lines = (n: number, f = (i: number) => `line ${i}`) => `${Array.from({ length: n }, (_, i) => f(i + 1)).join('\n')}\n`;

  it('is empty for equal texts and a hunk with 3 lines of context otherwise', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', { from: 'x', to: 'y' })).to.equal('');
    const before = lines(20);
    const after = before.replace('line 10\n', 'line ten\n');
    expect(unifiedDiff(before, after, { from: 'live', to: 'file' })).to.equal(
      [
        '--- live',
        '+++ file',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+line ten',
        ' line 11',
        ' line 12',
        ' line 13',
        '',
      ].join('\n'),
    );
  });

  it('joins close changes into one hunk, keeps distant ones apart, counts added files from /dev/null', () => {
    const before = lines(40);
    const after = before.replace('line 5\n', 'five\n').replace('line 9\n', 'nine\n').replace('line 35\n', '');
    const d = unifiedDiff(before, after, { from: 'a', to: 'b' });
    expect(d.match(/^@@/gm)).to.have.length(2);
    expect(d).to.include('@@ -2,11 +2,11 @@').and.include('@@ -32,7 +32,6 @@');
    expect(unifiedDiff('', 'x\ny\n', { from: '/dev/null', to: 'b' })).to.equal('--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n');
  });

  it('finds a shortest edit script (applying it turns a into b)', () => {
    const a = 'the quick brown fox jumps over the lazy dog'.split(' ');
    const b = 'the slow brown cat jumps over the dog again'.split(' ');
    const ops = editScript(a, b);
    expect(ops.filter((o) => o.op !== '+').map((o) => o.line)).to.deep.equal(a);
    expect(ops.filter((o) => o.op !== '-').map((o) => o.line)).to.deep.equal(b);
    expect(ops.filter((o) => o.op !== ' ')).to.have.length(6); // LCS: the brown jumps over the dog
  });
});
