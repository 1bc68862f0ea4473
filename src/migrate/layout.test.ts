import { expect } from 'chai';
import { layoutPanels } from './layout.js';
import { upgradeLegacyRows } from './legacy-rows.js';

const panel = (title: string, gridPos?: object, more: object = {}) => ({
  type: 'timeseries',
  title,
  ...(gridPos ? { gridPos } : {}),
  ...more,
});
const keysOf = (sections: ReturnType<typeof layoutPanels>) => sections.map((s) => [s.display?.title ?? null, s.panels.map((p) => p.key)]);

describe('migrate: layout', () => {
  it('folds panels that follow an expanded row into it, keeps collapsed rows and names keys i and i_j', () => {
    const notes: string[] = [];
    const sections = layoutPanels(
      {
        panels: [
          panel('top', { x: 0, y: 0, w: 24, h: 4 }),
          { type: 'row', title: 'Open', collapsed: false, gridPos: { x: 0, y: 4, w: 24, h: 1 }, panels: [] },
          panel('a', { x: 0, y: 5, w: 12, h: 8 }),
          panel('b', { x: 12, y: 5, w: 12.5, h: 8.2 }),
          {
            type: 'row',
            title: 'Closed',
            collapsed: true,
            repeat: 'node',
            gridPos: { x: 0, y: 13, w: 24, h: 1 },
            panels: [panel('c', { x: 0, y: 14, w: 6, h: 3 }, { repeat: 'cpu', repeatDirection: 'v', maxPerRow: 4 })],
          },
          { type: 'row', title: 'Empty', collapsed: false, panels: [] },
        ],
      },
      notes,
    );
    expect(keysOf(sections)).to.deep.equal([
      [null, ['0']],
      ['Open', ['1_0', '1_1']],
      ['Closed', ['2_0']],
    ]);
    expect(sections[1].display).to.deep.equal({ title: 'Open', collapse: { open: true } });
    expect(sections[2].display).to.deep.equal({ title: 'Closed', collapse: { open: false } });
    expect(sections[2].repeatVariable).to.equal('node');
    expect(sections[1].panels[1].item).to.deep.equal({ x: 12, y: 5, width: 12, height: 8 });
    expect(sections[2].panels[0].item.repeatVariable).to.deep.equal({ value: 'cpu', alignment: 'vertical', maxPer: 4 });
    expect(notes.join()).to.match(/empty row "Empty"/);
  });

  it('keeps the top-level panels after a collapsed row visible, in a section without header after it (Grafana shows them; only expanded rows take the panels that follow)', () => {
    const sections = layoutPanels(
      {
        panels: [
          panel('first', { x: 0, y: 0, w: 24, h: 4 }),
          {
            type: 'row',
            title: 'Closed',
            collapsed: true,
            gridPos: { x: 0, y: 4, w: 24, h: 1 },
            panels: [panel('inside', { x: 0, y: 5, w: 24, h: 6 })],
          },
          panel('after a', { x: 0, y: 5, w: 12, h: 8 }),
          panel('after b', { x: 12, y: 5, w: 12, h: 8 }),
          { type: 'row', title: 'Open', collapsed: false, gridPos: { x: 0, y: 13, w: 24, h: 1 }, panels: [] },
          panel('in open', { x: 0, y: 14, w: 24, h: 8 }),
        ],
      },
      [],
    );
    expect(keysOf(sections)).to.deep.equal([
      [null, ['0']],
      ['Closed', ['1_0']],
      [null, ['2', '3']],
      ['Open', ['4_0']],
    ]);
    expect(sections.map((s) => s.display?.collapse.open)).to.deep.equal([undefined, false, undefined, true]);
    expect(sections[2].panels.map((p) => p.item)).to.deep.equal([
      { x: 0, y: 5, width: 12, height: 8 },
      { x: 12, y: 5, width: 12, height: 8 },
    ]);
  });

  it('leaves out the copies Grafana saved for repeated panels, saying so', () => {
    const notes: string[] = [];
    const sections = layoutPanels(
      { panels: [panel('x', { x: 0, y: 0, w: 8, h: 4 }, { repeat: 'v' }), panel('x', { x: 8, y: 0, w: 8, h: 4 }, { repeatPanelId: 1 })] },
      notes,
    );
    expect(keysOf(sections)).to.deep.equal([[null, ['0']]]);
    expect(notes.join()).to.match(
      /1 panel\(s\) or row\(s\) Grafana had copied for a repeat were left out, .*: timeseries "x" \(copy of panel 1\)$/,
    );
  });

  it('keeps a panel whose repeatPanelId is 0 (falsy: not a copy)', () => {
    const notes: string[] = [];
    const sections = layoutPanels(
      {
        panels: [
          panel('x', { x: 0, y: 0, w: 8, h: 4 }, { repeatPanelId: 0 }),
          panel('y', { x: 8, y: 0, w: 8, h: 4 }, { repeatedByRow: false }),
        ],
      },
      notes,
    );
    expect(keysOf(sections)).to.deep.equal([[null, ['0', '1']]]);
    expect(notes).to.deep.equal([]);
  });

  it('takes library panels from the export and places panels without a position two per line', () => {
    const notes: string[] = [];
    const sections = layoutPanels(
      {
        panels: [
          { libraryPanel: { uid: 'lib1', name: 'Shared' }, gridPos: { x: 0, y: 0, w: 6, h: 6 } },
          { type: 'text', title: 'a' },
          { type: 'text', title: 'b' },
          { type: 'text', title: 'c' },
        ],
        __elements: { lib1: { uid: 'lib1', model: { type: 'stat', title: 'Shared stat', targets: [] } } },
      },
      notes,
    );
    expect(sections[0].panels[0].panel.type).to.equal('stat');
    expect(sections[0].panels.slice(1).map((p) => p.item)).to.deep.equal([
      { x: 0, y: 0, width: 12, height: 8 },
      { x: 12, y: 0, width: 12, height: 8 },
      { x: 0, y: 8, width: 12, height: 8 },
    ]);
  });

  it('upgrades the legacy rows[] layout: span to width, pixel heights to grid units, wrapping lines', () => {
    const panels = upgradeLegacyRows([
      {
        title: 'First',
        showTitle: true,
        height: '250px',
        panels: [
          { title: 'a', span: 6 },
          { title: 'b', span: 6 },
          { title: 'c', span: 4, height: 380 },
        ],
      },
      { title: 'Second', collapse: true, height: 190, panels: [{ title: 'd', span: 12 }] },
    ]);
    expect(panels.map((p) => [p.type, p.title, p.collapsed])).to.deep.equal([
      ['row', 'First', false],
      ['row', 'Second', true],
    ]);
    expect(panels[0].panels.map((p: any) => p.gridPos)).to.deep.equal([
      { x: 0, y: 1, w: 12, h: 7 },
      { x: 12, y: 1, w: 12, h: 7 },
      { x: 0, y: 8, w: 8, h: 10 },
    ]);
    expect(panels[1].gridPos.y).to.equal(18);
    expect(panels[1].panels[0].gridPos).to.deep.equal({ x: 0, y: 19, w: 24, h: 5 });
  });

  it('starts the legacy row after a collapsed one right below its header, as Grafana does (collapsed panels take no room)', () => {
    const panels = upgradeLegacyRows([
      { title: 'Closed', collapse: true, height: 190, panels: [{ title: 'a', span: 12 }] },
      { title: 'Open', height: 190, panels: [{ title: 'b', span: 12 }] },
    ]);
    expect(panels.map((p) => [p.title, p.gridPos.y, p.panels.map((c: any) => c.gridPos.y)])).to.deep.equal([
      ['Closed', 0, [1]],
      ['Open', 1, [2]],
    ]);
  });

  it('lays out legacy rows without headers when none has a title shown, is collapsed or repeats, as Grafana does, however many rows', () => {
    const rows = [
      { title: 'CPU', showTitle: false, height: '250px', panels: [{ type: 'graph', title: 'a', span: 6 }] },
      { title: 'Memory', height: '250px', panels: [{ type: 'graph', title: 'b', span: 12 }] },
    ];
    expect(upgradeLegacyRows(rows).map((p) => [p.type, p.title, p.gridPos])).to.deep.equal([
      ['graph', 'a', { x: 0, y: 0, w: 12, h: 7 }],
      ['graph', 'b', { x: 0, y: 7, w: 24, h: 7 }],
    ]);
    expect(keysOf(layoutPanels({ rows }, []))).to.deep.equal([[null, ['0', '1']]]);
    // one row with its title shown: every row gets its header
    expect(keysOf(layoutPanels({ rows: [rows[0], { ...rows[1], showTitle: true }] }, []))).to.deep.equal([
      ['CPU', ['0_0']],
      ['Memory', ['1_0']],
    ]);
  });

  it('puts the panels of a single untitled legacy row on the top level', () => {
    const panels = upgradeLegacyRows([{ title: 'Row', showTitle: false, panels: [{ title: 'a', span: 12 }] }]);
    expect(panels.map((p) => p.title)).to.deep.equal(['a']);
    expect(layoutPanels({ rows: [{ panels: [{ type: 'graph', title: 'a' }] }] }, []).map((s) => s.display)).to.deep.equal([undefined]);
  });
});
