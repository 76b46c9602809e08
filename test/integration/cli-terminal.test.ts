/**
 * lr-node on a terminal: a pseudo-terminal from util-linux `script` (no native addon) shows the
 * progress bar of publish and harvest, and `start` logs readable lines (pino-pretty), not JSON.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { SAMPLE_CORPUS } from '../../src/sample-data.js';
import { exitOf, ROOT } from '../support/process.js';
import { startTestNode, addAccount, tempDir, type TestNode } from '../support/node.js';
import { BIN, cliEnv, ensureBuilt, until } from '../support/cli.js';
import { requireProgram } from '../support/programs.js';

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs lr-node inside `script`: its standard output and error are a pseudo-terminal. */
function inTerminal(args: string[], env: Record<string, string>, cwd = ROOT): { output: () => string; write: (text: string) => void; exit: Promise<{ code: number | null }> } {
  const child = spawn('script', ['-qfec', `exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`, '/dev/null'], { cwd, env: cliEnv({ TERM: 'xterm', ...env }), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { out += chunk.toString('utf8'); });
  return { output: () => out, write: (text) => child.stdin.write(text), exit: exitOf(child, 120000) };
}

describe('lr-node on a terminal', function () {
  this.timeout(300000);
  let node: TestNode;
  let work: string;

  before(async function () {
    requireProgram('script');
    ensureBuilt();
    // Pages of 10: the OAI-PMH harvest learns completeListSize, the total of its bar.
    const service = (extra: Record<string, unknown>): Record<string, unknown> => ({ service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: 10, id_limit: 100, flow_control: true, metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }], ...extra } });
    node = await startTestNode({ nodeConfig: { services: { harvest: service({ setSpec: null }), oai_pmh: service({ version: 'OAI-PMH 2.0' }) } } });
    await addAccount(node, 'pub', 'terminal-publisher-phrase');
    work = tempDir('lr-node-tty-');
  });
  after(async () => { await node?.stop(); });

  it('publish and harvest draw a progress bar', async () => {
    const publish = inTerminal(['publish', node.url, SAMPLE_CORPUS, '--batch-size', '10'], { LR_USER: 'pub', LR_PASSWORD: 'terminal-publisher-phrase' }, work);
    expect((await publish.exit).code, publish.output()).to.equal(0);
    const drawn = publish.output();
    expect(drawn).to.match(/publish [█░]{40} 100% \| 100\/100 sent \| 100 accepted \| 0 rejected \| [\d.]+\/s \| ETA /);
    expect(drawn).to.contain('\u001b[?25l'); // cli-progress hides the cursor while drawing
    expect(drawn).to.contain('░');
    expect(drawn).to.not.contain('terminal-publisher-phrase');

    // oai_dc (every record has it, issue 13) is OAI-PMH XML with completeListSize; the node answers
    // its JSON prefix as Basic Harvest does, whose pages carry no total.
    const harvest = inTerminal(['harvest', node.url, '--via', 'oai', '--prefix', 'oai_dc', '--out', 'tty.jsonl'], {}, work);
    expect((await harvest.exit).code, harvest.output()).to.equal(0);
    // completeListSize (on the last page) becomes the total of the bar.
    expect(harvest.output()).to.match(/harvest [█░]{40} 100% \| 100\/100 records \| [\d.]+\/s/);
  });

  it('start logs readable lines, not JSON, and stops on Ctrl-C', async () => {
    const started = inTerminal(['start'], { PORT: '0', DATA_DIR: tempDir(), LOG_LEVEL: 'info' });
    await until(() => started.output().includes('node listening'), 120000, 'node listening');
    started.write('\u0003');
    expect((await started.exit).code).to.equal(0);
    const lines = started.output().split(/\r?\n/).filter(Boolean);
    expect(lines.some((line) => /INFO.*node listening/.test(line))).to.equal(true);
    expect(lines.filter((line) => line.startsWith('{'))).to.deep.equal([]);
    expect(started.output()).to.contain('node stopped');
  });
});
