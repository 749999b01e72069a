import { describe, expect, it } from 'vitest';
import { UsageError } from '../common/usage-error';
import { parseClusterOptions } from './cluster-options';

describe('baton cluster options', () => {
  it('defaults: console 8080, engines 8090 and 8091, the demo executor, data kept', () => {
    expect(parseClusterOptions([])).toEqual({ consolePort: 8080, enginePort: 8090, engines: 2, fresh: false, executor: true, ha: false, db: 'galera' });
  });

  it('reads every option', () => {
    expect(parseClusterOptions(['--console-port', '0', '--engine-port=9000', '--engines', '3', '--fresh', '--no-executor', '--ha', '--db=replica'])).toEqual({
      consolePort: 0,
      enginePort: 9000,
      engines: 3,
      fresh: true,
      executor: false,
      ha: true,
      db: 'replica',
    });
  });

  it.each([
    [['--engines', '0'], '--engines must be an integer from 1 to 16 (got "0")'],
    [['--console-port', 'http'], '--console-port must be an integer from 0 to 65535 (got "http")'],
    [['--engine-port', '65535', '--engines', '2'], '--engine-port: 65535 + 2 engines goes past port 65535'],
    [['--verbose'], "Unknown option '--verbose'"],
    [['extra'], "Unexpected argument 'extra'"],
    [['--ha', '--db=vitess'], '--db must be galera or replica (got "vitess")'],
    [['--db=replica'], '--db is an option of --ha'],
  ])('refuses %j naming the option', (args, message) => {
    expect(() => parseClusterOptions(args)).toThrow(UsageError);
    expect(() => parseClusterOptions(args)).toThrow(message);
  });
});
