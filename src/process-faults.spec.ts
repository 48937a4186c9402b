import { EventEmitter } from 'node:events';
import pino from 'pino';
import { QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { handleProcessFaults, type ProcessFaultHooks } from './process-faults';

const adminShutdown = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

describe('handleProcessFaults', () => {
  let target: EventEmitter;
  let lines: Array<{ level: number; msg: string; err?: { message: string } }>;
  let hooks: jest.Mocked<ProcessFaultHooks>;
  let booting: boolean;

  beforeEach(() => {
    target = new EventEmitter();
    lines = [];
    booting = false;
    hooks = {
      booting: jest.fn(() => booting),
      failBoot: jest.fn(),
      shutdown: jest.fn(),
      survived: jest.fn(),
    };
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    handleProcessFaults(target, log, hooks);
  });

  it('keeps serving through an uncaught database error (issue 28, finding 3): logged at error with its stack, counted', () => {
    target.emit('uncaughtException', adminShutdown());

    expect(hooks.shutdown).not.toHaveBeenCalled();
    expect(hooks.survived).toHaveBeenCalledWith('exception', 'database');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'uncaught database error (the service keeps running)',
        err: expect.objectContaining({ message: 'terminating connection due to administrator command' }),
      }),
    ]);
  });

  it('stops the service on any other uncaught exception, as before', () => {
    target.emit('uncaughtException', new TypeError('x is undefined'));

    expect(hooks.shutdown).toHaveBeenCalledWith('uncaught exception');
    expect(hooks.survived).not.toHaveBeenCalled();
    expect(lines).toEqual([expect.objectContaining({ level: 60, msg: 'uncaught exception' })]);
  });

  it('keeps serving through unhandled rejections, counting the database’s apart', () => {
    target.emit('unhandledRejection', new QueryRunnerProviderAlreadyReleasedError());
    target.emit('unhandledRejection', new Error('boom'));

    expect(hooks.shutdown).not.toHaveBeenCalled();
    expect(hooks.survived.mock.calls).toEqual([
      ['rejection', 'database'],
      ['rejection', 'other'],
    ]);
    expect(lines.map((line) => line.level)).toEqual([50, 50]);
  });

  it('fails the start on any fault while booting, database or not', () => {
    booting = true;
    const error = adminShutdown();
    target.emit('uncaughtException', error);
    target.emit('unhandledRejection', error);

    expect(hooks.failBoot.mock.calls).toEqual([[error], [error]]);
    expect(hooks.survived).not.toHaveBeenCalled();
  });

  it('still keeps serving when counting fails', () => {
    hooks.survived.mockImplementation(() => {
      throw new Error('the application is closed');
    });
    expect(() => target.emit('uncaughtException', adminShutdown())).not.toThrow();
    expect(hooks.shutdown).not.toHaveBeenCalled();
  });
});
