/**
 * lr-node on a terminal: a pseudo-terminal from util-linux `script` (no native addon) shows the
 * progress bar of publish and harvest, `start` logs readable lines (pino-pretty), not JSON, and
 * passwords are read from a prompt that does not echo them.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { SAMPLE_CORPUS } from '../../src/sample-data.js';
import { exitOf, ROOT } from '../support/process.js';
import { startTestNode, addAccount, tempDir, type TestNode } from '../support/node.js';
import { BIN, cliEnv, ensureBuilt, lrNode, until } from '../support/cli.js';
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

type Terminal = ReturnType<typeof inTerminal>;

/** Types each answer once the terminal shows its prompt (the prompt appears again for each answer). */
async function answer(terminal: Terminal, exchanges: [prompt: string, typed: string][]): Promise<void> {
  const seen = new Map<string, number>();
  for (const [prompt, typed] of exchanges) {
    const count = (seen.get(prompt) ?? 0) + 1;
    seen.set(prompt, count);
    await until(() => terminal.output().split(prompt).length > count, 60000, `prompt ${JSON.stringify(prompt)}`);
    terminal.write(typed);
  }
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

  it('account add and passwd read the password twice from a prompt that does not echo it; the node accepts the new password, not the old one', async () => {
    const store = { DATA_DIR: node.dataDir };
    /** distribute needs network_admin: exit 0 when the node accepts the credential, 4 when it refuses it. */
    const distributeAs = async (password: string): Promise<number | null> => (await lrNode(['distribute', node.url], { env: { LR_USER: 'tty-ops', LR_PASSWORD: password } })).code;

    const added = inTerminal(['account', 'add', 'tty-ops', '--role', 'network_admin'], store, work);
    await answer(added, [['password for tty-ops: ', 'first-tty-phrase-41\r'], ['again: ', 'first-tty-phrase-41\r']]);
    expect((await added.exit).code, added.output()).to.equal(0);
    expect(added.output()).to.contain('account tty-ops added (network_admin)');
    expect(added.output()).to.not.contain('first-tty-phrase');
    expect(await distributeAs('first-tty-phrase-41')).to.equal(0);
    expect(await distributeAs('first-tty-phrase-40')).to.equal(4);

    // A typo corrected with backspace (DEL, what a terminal sends) on the first entry.
    const changed = inTerminal(['account', 'passwd', 'tty-ops'], store, work);
    await answer(changed, [['password for tty-ops: ', 'second-tty-phrasX\u007fe-52\r'], ['again: ', 'second-tty-phrase-52\r']]);
    expect((await changed.exit).code, changed.output()).to.equal(0);
    expect(changed.output()).to.contain('account tty-ops: password changed');
    expect(changed.output()).to.not.match(/second-tty|phrasX/);
    expect(await distributeAs('second-tty-phrase-52')).to.equal(0);
    expect(await distributeAs('first-tty-phrase-41')).to.equal(4);

    // Two entries that differ change nothing.
    const differ = inTerminal(['account', 'passwd', 'tty-ops'], store, work);
    await answer(differ, [['password for tty-ops: ', 'third-tty-phrase-63\r'], ['again: ', 'third-tty-phrase-64\r']]);
    expect((await differ.exit).code).to.equal(1);
    expect(differ.output()).to.contain('account: the passwords differ');
    expect(differ.output()).to.not.contain('third-tty');
    expect(await distributeAs('second-tty-phrase-52')).to.equal(0);
    expect(await distributeAs('third-tty-phrase-63')).to.equal(4);

    // Without a terminal: from standard input.
    const fromStdin = await lrNode(['account', 'passwd', 'tty-ops', '--password-stdin'], { env: store, stdin: 'fourth-tty-phrase-75\n' });
    expect(fromStdin.code, fromStdin.stderr).to.equal(0);
    expect(fromStdin.stdout).to.equal('account tty-ops: password changed\n');
    expect(fromStdin.stdout + fromStdin.stderr).to.not.contain('fourth-tty');
    expect(await distributeAs('fourth-tty-phrase-75')).to.equal(0);
    expect(await distributeAs('second-tty-phrase-52')).to.equal(4);

    // A client command asks for its credential's password the same way.
    const distributed = inTerminal(['distribute', node.url, '--user', 'tty-ops'], {}, work);
    await answer(distributed, [['password for tty-ops: ', 'fourth-tty-phrase-75\r']]);
    expect((await distributed.exit).code, distributed.output()).to.equal(0);
    expect(distributed.output()).to.contain('distributed: the node has no active connection');
    expect(distributed.output()).to.not.contain('fourth-tty');
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
