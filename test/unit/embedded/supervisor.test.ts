import { expect } from 'chai';
import { childExecArgv, crashReason } from '../../../src/embedded/supervisor.js';

describe('the embedded store child: its flags and what its crash said', () => {
  it('a child run from the sources gets tsx\'s loader unless its parent\'s flags already carry one', () => {
    const added = childExecArgv(['--max-semi-space-size=8'], true);
    expect(added?.slice(0, 2)).to.deep.equal(['--max-semi-space-size=8', '--import']);
    expect(added?.[2]).to.match(/^file:\/\/.*tsx/);
    expect(childExecArgv(['--import', 'tsx'], true)).to.equal(undefined);
    expect(childExecArgv(['--import=tsx'], true)).to.equal(undefined);
    expect(childExecArgv([], false)).to.equal(undefined);
  });

  it('names the error line of a stack trace, else the last lines', () => {
    const trace = 'node:internal/modules/esm/get_format:218\n  throw new ERR_UNKNOWN_FILE_EXTENSION(ext, filepath);\n        ^\n\nTypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for /x/child.ts\n    at Object.getFileProtocolModuleFormat (node:internal)\n{\n  code: \'ERR_UNKNOWN_FILE_EXTENSION\'\n}\n\nNode.js v20.20.2\n';
    expect(crashReason(trace)).to.equal('TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for /x/child.ts');
    expect(crashReason('one\ntwo\nthree\nfour\n')).to.equal('two three four');
  });
});
