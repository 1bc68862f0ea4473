import { expect } from 'chai';
import { Command, Option } from 'commander';
import { complete } from './completion.js';

describe('dashctl completion', () => {
  it('completes from a commander tree: subcommands, options of the command and its parents, choices, values by name', () => {
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
    expect(c('')).to.deep.equal(['get', 'config', 'help']);
    expect(c('get', 'da')).to.deep.equal(['dashboards', 'datasources']);
    expect(c('get', '-p', 'team', 'f')).to.deep.equal(['folders'], 'the value of -p is not the kind');
    expect(c('get', '-A', 'f')).to.deep.equal(['folders'], '-A takes no value');
    expect(c('get', 'folders', '')).to.deep.equal([], 'names: files (nothing)');
    expect(c('get', '-o', '')).to.deep.equal(['json', 'yaml']);
    expect(c('get', '--')).to.deep.equal(['--output', '--project', '--all', '--help', '--context']);
    expect(c('--context', 'd')).to.deep.equal(['dev']);
    expect(c('config', '')).to.deep.equal(['use-context', 'show', 'help']);
    expect(c('config', 'use-context', '')).to.deep.equal(['prod', 'dev']);
  });
});
