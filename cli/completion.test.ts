import { expect } from 'chai';
import { Command, Option } from 'commander';
import { complete, type Line } from './completion.js';

describe('dashctl completion', () => {
  it('completes from a commander tree: subcommands, options of the command and its parents, choices, values by name', async () => {
    const program = new Command('x').option('--context <name>');
    program
      .command('get')
      .argument('<kind>')
      .argument('[names...]')
      .addOption(new Option('-o, --output <f>').choices(['json', 'yaml']))
      .option('-p, --project <p>')
      .option('-A, --all');
    const config = program.command('config');
    config.command('use-context').argument('<context>');
    config.command('show');
    const values = { kind: () => ['dashboards', 'datasources', 'folders'], context: () => ['prod', 'dev'] };
    const c = (...words: string[]) => complete(program, words, values);
    expect(await c('')).to.deep.equal(['get', 'config', 'help']);
    expect(await c('get', 'da')).to.deep.equal(['dashboards', 'datasources']);
    expect(await c('get', '-p', 'team', 'f')).to.deep.equal(['folders'], 'the value of -p is not the kind');
    expect(await c('get', '-A', 'f')).to.deep.equal(['folders'], '-A takes no value');
    expect(await c('get', 'folders', '')).to.deep.equal([], 'names: files (nothing)');
    expect(await c('get', '-o', '')).to.deep.equal(['json', 'yaml']);
    expect(await c('get', '--')).to.deep.equal(['--output', '--project', '--all', '--help', '--context']);
    expect(await c('--context', 'd')).to.deep.equal(['dev']);
    expect(await c('config', '')).to.deep.equal(['use-context', 'show', 'help']);
    expect(await c('config', 'use-context', '')).to.deep.equal(['prod', 'dev']);
  });

  it('gives a value source the line: the command, its arguments, the options given (also as --opt=value), the word typed', async () => {
    const program = new Command('x').option('--context <name>');
    program.command('get').argument('<kind>').argument('[names...]').option('-p, --project <p>').option('-A, --all');
    const seen: Line[] = [];
    const names = (line: Line) => {
      seen.push(line);
      return ['cpu', 'cpu2', 'disk'];
    };
    expect(await complete(program, ['--context', 'prod', 'get', 'dash', '-p', 'demo', 'cpu', 'c'], { names })).to.deep.equal([
      'cpu',
      'cpu2',
    ]);
    expect(seen[0]).to.deep.include({ args: ['dash', 'cpu'], options: { context: 'prod', project: 'demo' }, current: 'c' });
    expect(seen[0].command.name()).to.equal('get');
    expect(await complete(program, ['get', 'dash', '--project=team', '-A', ''], { names })).to.have.length(3);
    expect(seen[1].options).to.deep.equal({ project: 'team' });
    const failing = () => Promise.reject(new Error('server down'));
    expect(await complete(program, ['get', 'dash', ''], { names: failing }), 'a failing source offers nothing').to.deep.equal([]);
  });
});
