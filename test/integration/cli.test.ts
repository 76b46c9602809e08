/** lr-node as a child process against a real node: publish signed, harvest back identical, verify, errors and exit codes. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { derivedDocId } from '../../src/cli/document-signing.js';
import { SAMPLE_CORPUS } from '../../src/sample-data.js';
import { startTestNode, addAccount, currentStatus, tempDir, type TestNode } from '../support/node.js';
import { CONTROL_CHARACTERS, ensureBuilt, lrNode, spawnCli, startProxy, until } from '../support/cli.js';
import { exitOf } from '../support/process.js';
import { ROOT } from '../support/process.js';

const PASSWORD = 'cli-publisher-phrase-7';
const NODE_FIELDS = ['publish_node', 'publishing_node', 'create_timestamp', 'update_timestamp', 'node_timestamp'];
type Doc = Record<string, unknown>;
const readLines = (file: string): Doc[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Doc);
const without = (doc: Doc, fields: string[]): Doc => Object.fromEntries(Object.entries(doc).filter(([key]) => !fields.includes(key)));

describe('lr-node (the command line)', function () {
  this.timeout(300000);
  let node: TestNode;
  let work: string;
  let keyFile: string;
  let publicKeyFile: string;
  const env = (): Record<string, string> => ({ LR_USER: 'pub', LR_PASSWORD: PASSWORD });

  before(async () => {
    ensureBuilt();
    node = await startTestNode();
    await addAccount(node, 'pub', PASSWORD);
    await addAccount(node, 'ops', 'cli-admin-phrase-77', 'network_admin');
    work = tempDir('lr-node-cli-');
    const keys = await generateNodeKeyPair('CLI Publisher', 'cli@example.org');
    keyFile = path.join(work, 'publisher.key');
    publicKeyFile = path.join(work, 'publisher.pub');
    fs.writeFileSync(keyFile, keys.privateKeyArmored);
    fs.writeFileSync(publicKeyFile, keys.publicKeyArmored);
  });
  after(async () => { await node.stop(); });

  it('publishes the sample corpus signed and harvests it back identical through JSON and OAI-PMH; verify checks every signature', async () => {
    const published = await lrNode(['publish', node.url, SAMPLE_CORPUS, '--sign-key', keyFile, '--key-location', 'http://keys.example.org/publisher.asc', '--batch-size', '7'], { env: env(), cwd: work });
    expect(published.code, published.stderr).to.equal(0);
    expect(published.stdout).to.equal(`published 100 documents to ${node.url}: 100 accepted, 0 rejected\n`);
    expect(published.stdout + published.stderr).to.not.match(CONTROL_CHARACTERS);
    expect(published.stderr).to.match(/^publish: 100\/100 sent \| 100 accepted \| 0 rejected \| [\d.]+\/s \| ETA 0s$/m);
    expect(published.stdout + published.stderr).to.not.contain(PASSWORD);

    const viaJson = await lrNode(['harvest', node.url, '--out', 'json.jsonl'], { cwd: work });
    expect(viaJson.code, viaJson.stderr).to.equal(0);
    const viaOai = await lrNode(['harvest', node.url, '--via', 'oai', '--prefix', 'LR_JSON_0.10.0', '--out', 'oai.jsonl'], { cwd: work });
    expect(viaOai.code, viaOai.stderr).to.equal(0);
    expect(viaOai.stdout + viaOai.stderr + viaJson.stdout + viaJson.stderr).to.not.match(CONTROL_CHARACTERS);
    const jsonRecords = readLines(path.join(work, 'json.jsonl'));
    expect(readLines(path.join(work, 'oai.jsonl'))).to.deep.equal(jsonRecords);

    const corpus = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Doc[] };
    const sha = createHash('sha256').update(fs.readFileSync(SAMPLE_CORPUS)).digest('hex');
    const byId = new Map(jsonRecords.map((record) => [(record.resource_data as Doc).doc_ID as string, record]));
    expect(byId.size).to.equal(100);
    corpus.documents.forEach((doc, index) => {
      const record = byId.get(derivedDocId(sha, index));
      expect(record, `document ${index}`).to.not.equal(undefined);
      expect((record!.header as Doc).status).to.equal('active');
      const stored = record!.resource_data as Doc;
      expect(without(stored, [...NODE_FIELDS, 'digital_signature'])).to.deep.equal({ ...without(doc, ['digital_signature']), doc_ID: derivedDocId(sha, index) });
      expect(stored.digital_signature).to.include({ signing_method: 'LR-PGP.1.0', key_owner: 'CLI Publisher <cli@example.org>' });
    });

    const verified = await lrNode(['verify', 'json.jsonl', '--key', publicKeyFile], { cwd: work });
    expect(verified.code, verified.stderr).to.equal(0);
    expect(verified.stdout.split('\n').filter(Boolean)).to.have.length(100).and.satisfy((lines: string[]) => lines.every((l) => /^ok\t[0-9a-f]{32}\t[0-9a-f]{40}$/.test(l)));

    const tampered = readLines(path.join(work, 'json.jsonl')).slice(0, 2);
    (tampered[1]!.resource_data as Doc).resource_locator = 'http://evil.example.org/';
    fs.writeFileSync(path.join(work, 'tampered.jsonl'), tampered.map((r) => JSON.stringify(r)).join('\n'));
    const failed = await lrNode(['verify', 'tampered.jsonl', '--key', publicKeyFile, '--json'], { cwd: work });
    expect(failed.code).to.equal(1);
    const results = failed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Doc);
    expect(results.map((r) => r.OK)).to.deep.equal([true, false]);
    expect(results[1]!.error).to.match(/does not match the canonical hash/);
  });

  it('writes rejected documents with their errors to the report and exits with the refused code', async () => {
    const input = path.join(work, 'mixed.jsonl');
    const good = { doc_type: 'resource_data', doc_version: '0.23.0', resource_data_type: 'metadata', active: true, TOS: { submission_TOS: 'http://example.org/tos' },
      identity: { submitter_type: 'agent', submitter: 'cli test' }, resource_locator: 'http://example.org/r/1', payload_placement: 'inline', payload_schema: ['DC 1.1'], resource_data: '<dc/>' };
    fs.writeFileSync(input, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, doc_version: 'nonsense' })}\n`);
    const run = await lrNode(['publish', node.url, input, '--state', 'mixed.state', '--report', 'mixed.rejected', '--json'], { env: env(), cwd: work });
    expect(run.code, run.stderr).to.equal(4);
    expect(JSON.parse(run.stdout)).to.include({ OK: false, documents: 2, accepted: 1, rejected: 1, report: 'mixed.rejected' });
    const [rejected] = readLines(path.join(work, 'mixed.rejected'));
    expect(rejected).to.include({ file: input, index: 1 });
    expect(rejected!.error).to.be.a('string').and.not.equal('');
    expect((rejected!.document as Doc).doc_version).to.equal('nonsense');
    const again = await lrNode(['publish', node.url, input, '--state', 'mixed.state', '--report', 'mixed.rejected'], { env: env(), cwd: work });
    // Both were acknowledged (one refused): the rerun sends nothing, and says so.
    expect(again.stdout).to.equal(`nothing sent: the 2 documents were sent to ${node.url} by an earlier run (state in mixed.state): 1 accepted, 1 rejected (see mixed.rejected)\n`);
    expect(again.stderr).to.equal('');
  });

  it('has distinct exit codes for usage, network and refused-by-node errors, one line on stderr each', async () => {
    const usage = await lrNode(['harvest', node.url, '--via', 'ftp', '--out', 'x']);
    expect(usage.code).to.equal(2);
    const badDate = await lrNode(['harvest', node.url, '--from', 'yesterday', '--out', 'x']);
    expect(badDate.code).to.equal(2);
    const network = await lrNode(['status', 'http://127.0.0.1:9', '--retries', '0']);
    expect(network.code).to.equal(3);
    expect(network.stderr).to.match(/^status: cannot reach 127\.0\.0\.1:9: .+ \(gave up after 0 retries\)\n$/);
    const wrongPassword = await lrNode(['distribute', node.url], { env: { LR_USER: 'ops', LR_PASSWORD: 'not-the-password' } });
    expect(wrongPassword.code).to.equal(4);
    expect(wrongPassword.stderr).to.match(/^distribute: POST \/distribute: the node refused: not authorized \(401\)/);
    expect(wrongPassword.stderr).to.not.contain('not-the-password');
    const notAdmin = await lrNode(['distribute', node.url], { env: env() });
    expect(notAdmin.code).to.equal(4);
    const noPassword = await lrNode(['publish', node.url, SAMPLE_CORPUS], { env: { LR_USER: 'pub' } });
    expect(noPassword.code).to.equal(2);
    expect(noPassword.stderr).to.equal('publish: no terminal to read the password from: use --password-stdin or LR_PASSWORD\n');
    // The command names itself once, in front of the message (the messages do not repeat it).
    const refusedPublish = await lrNode(['publish', node.url, SAMPLE_CORPUS, '--state', 'refused.state', '--report', 'refused.rejected', '--json'], { env: { LR_USER: 'pub', LR_PASSWORD: 'not-the-password' }, cwd: work });
    expect(refusedPublish.code).to.equal(4);
    expect(refusedPublish.stderr).to.equal('publish: not authorized (401): give a publisher account with --user or LR_USER and LR_PASSWORD\n');
    const notFound = await lrNode(['harvest', `${node.url}/no-such-node`, '--out', 'not-found.jsonl', '--json'], { cwd: work });
    expect(notFound.code).to.equal(4);
    expect(notFound.stderr).to.match(new RegExp(`^harvest: HTTP 404 from ${new URL(node.url).host}: \\{.*\\}\\n$`));
    const help = await lrNode(['harvest', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('--via <protocol>');
    // A URL with credentials is refused before anything is printed or stored with it.
    const withCredentials = node.url.replace('://', '://u:Leak-Url-9@');
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-cli-url-'));
    for (const args of [['status', withCredentials], ['harvest', withCredentials, '--out', 'h.jsonl'], ['publish', withCredentials, SAMPLE_CORPUS], ['distribute', withCredentials]]) {
      const refused = await lrNode(args, { cwd });
      expect(refused.code, args[0]).to.equal(2);
      expect(refused.stderr, args[0]).to.match(/give the URL without credentials/);
      expect(refused.stdout + refused.stderr, args[0]).to.not.contain('Leak-Url-9');
    }
    expect(fs.readdirSync(cwd), 'no state file or output').to.deep.equal([]);
  });

  it('distribute prints the outcome per destination; status and services print the node documents', async () => {
    const distributed = await lrNode(['distribute', node.url, '--user', 'ops', '--password-stdin'], { stdin: 'cli-admin-phrase-77\n' });
    expect(distributed.code, distributed.stderr).to.equal(0);
    expect(distributed.stdout).to.equal('distributed: the node has no active connection\n');
    await currentStatus(node.url);
    const status = await lrNode(['status', node.url, '--json']);
    expect(JSON.parse(status.stdout)).to.include({ OK: true, doc_count: 101 });
    const services = await lrNode(['services', node.url]);
    expect(services.stdout).to.match(/^Basic Publish\tactive\thttp:\/\/\S+\/publish\tauth=basicauth,oauth\tdoc_limit=1000 msg_size_limit=10485760 max_document_size=1048576 id_length_limit=8192$/m);
  });

  it('--version prints the version of package.json; a dist/ older than the sources is not run, and the launcher says so', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const current = await lrNode(['--version']);
    expect({ code: current.code, stdout: current.stdout, stderr: current.stderr }).to.deep.equal({ code: 0, stdout: `${version}\n`, stderr: '' });
    // What an in-place upgrade without a build leaves: the built CLI older than a source file.
    const built = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
    const { mtime } = fs.statSync(built);
    fs.utimesSync(built, new Date(0), new Date(0));
    try {
      const stale = await lrNode(['--version']);
      expect({ code: stale.code, stdout: stale.stdout, stderr: stale.stderr }).to.deep.equal({ code: 0, stdout: `${version}\n`, stderr: 'lr-node: dist/ is older than the sources in src/ (run npm run build): running the sources\n' });
    } finally {
      fs.utimesSync(built, mtime, mtime);
    }
  });

  // The launcher registers tsx inside its own process; the embedded store's child, forked with the
  // parent's flags, had no loader and died on child.ts, so every embedded start after an in-place
  // upgrade failed with "embedded store failed to start (exit 1): }  Node.js v20..." (an audit's finding).
  it('start from the sources (what a dist/ older than src/ makes the launcher run) brings the embedded store up', async () => {
    const started = spawnCli(['start'], { env: { LR_NODE_FROM_SOURCE: '1', COUCHDB_URL: '', PORT: '0', DATA_DIR: tempDir(), LOG_LEVEL: 'info' } });
    try {
      await until(() => /"msg":"node listening"/.test(started.output().stdout) || started.child.exitCode !== null, 90000, 'the node to listen');
      const url = /"url":"([^"]+)"[^\n]*"msg":"node listening"/.exec(started.output().stdout)?.[1];
      expect(url, started.output().stderr).to.be.a('string');
      const status = await fetch(`${url}/status`);
      expect(status.status).to.equal(200);
    } finally {
      started.child.kill('SIGTERM');
      await exitOf(started.child, 60000);
    }
  });

  it('npm run build removes from dist/ the output of a module moved or deleted since, and the built CLI runs', async () => {
    // What a dist/ built before a module moved holds (src/config/stored-config.ts once was).
    const leftOver = [path.join(ROOT, 'dist', 'src', 'config', 'moved-away.js'), path.join(ROOT, 'dist', 'src', 'gone', 'deleted.js')];
    for (const file of leftOver) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'export {};\n');
    }
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, `${build.stdout}${build.stderr}`).to.equal(0);
    for (const file of leftOver) expect(fs.existsSync(file), file).to.equal(false);
    expect(fs.existsSync(path.join(ROOT, 'dist', 'src', 'gone'))).to.equal(false);
    const run = await lrNode(['--version']);
    expect({ code: run.code, stderr: run.stderr }).to.deep.equal({ code: 0, stderr: '' });
  });

  it('--help of every command and subcommand exits 0 and names each of its options', async () => {
    const common = ['--json', '--retries <n>', '--timeout <seconds>'];
    const credentials = ['-u, --user <name>', '--password <password>', '--password-stdin'];
    const expected: [string[], string[]][] = [
      [[], ['start', 'status', 'services', 'account', 'destination', 'config', 'publish', 'harvest', 'distribute', 'verify']],
      [['start'], ['--sample-data']],
      [['status'], ['<url>', ...common]],
      [['services'], ['<url>', ...common]],
      [['account'], ['add', 'list', 'passwd', 'disable', 'enable', 'remove']],
      [['account', 'add'], ['<name>', '--role <role>', '--submitter <text>', '--password-stdin']],
      [['account', 'list'], ['--json']],
      [['account', 'passwd'], ['<name>', '--password-stdin']],
      [['account', 'disable'], ['<name>']],
      [['account', 'enable'], ['<name>']],
      [['account', 'remove'], ['<name>']],
      [['config'], ['show']],
      [['config', 'show'], []],
      [['publish'], ['<url>', '<files...>', ...common, ...credentials, '--sign-key <file>', '--key-location <url>', '--state <file>', '--report <file>', '--batch-size <n>']],
      [['harvest'], ['<url>', ...common, '-o, --out <file>', '--via <protocol>', '--prefix <metadataPrefix>', '--from <date>', '--until <date>', '--state <file>', '--overwrite']],
      [['distribute'], ['<url>', ...common, ...credentials]],
      [['verify'], ['<files...>', '--key <file>', '--allow-private', '--json']],
    ];
    for (const [command, names] of expected) {
      const help = await lrNode([...command, '--help']);
      expect(help.code, `${command.join(' ')} --help: ${help.stderr}`).to.equal(0);
      expect(help.stdout).to.match(new RegExp(`^Usage: lr-node${command.map((c) => ` ${c}`).join('')} `));
      for (const name of [...names, '-h, --help']) {
        // A subcommand is listed at the start of a line of its parent's help; an option or argument anywhere.
        if (/^[a-z]/.test(name)) expect(help.stdout, `${command.join(' ')} --help`).to.match(new RegExp(`^ +${name}\\b`, 'm'));
        else expect(help.stdout, `${command.join(' ')} --help`).to.contain(name);
      }
      expect(help.stderr).to.equal('');
    }
    // The account commands take no password as an argument.
    for (const action of ['add', 'passwd']) expect((await lrNode(['account', action, '--help'])).stdout).to.not.contain('--password <');
  });

  it('--json: services prints the node\'s service documents, harvest a summary, each one JSON value on stdout', async () => {
    const services = await lrNode(['services', node.url, '--json']);
    expect(services.code, services.stderr).to.equal(0);
    expect(services.stdout.endsWith('\n')).to.equal(true);
    const list = JSON.parse(services.stdout) as Doc[];
    expect(list.map((s) => s.service_name)).to.include.members(['Basic Publish', 'Basic Harvest', 'OAI-PMH Harvest']);
    expect(list.find((s) => s.service_name === 'Basic Publish')).to.deep.include({ service_endpoint: `${node.publicUrl}/publish` })
      .and.have.nested.property('service_data.doc_limit', 1000);
    const harvested = await lrNode(['harvest', node.url, '--out', 'summary.jsonl', '--json'], { cwd: work });
    expect(harvested.code, harvested.stderr).to.equal(0);
    const records = readLines(path.join(work, 'summary.jsonl')).length;
    expect(records).to.be.greaterThan(0);
    expect(JSON.parse(harvested.stdout)).to.deep.equal({ OK: true, url: node.url, via: 'json', records, fetched: records, out: 'summary.jsonl' });
    // No progress lines either: --json is for scripts.
    expect(harvested.stderr).to.equal('');
  });

  it('--password (publish and distribute: the client credential) is used and never printed; the account commands refuse it', async () => {
    const asFlag = await lrNode(['distribute', node.url, '--user', 'ops', '--password', 'cli-admin-phrase-77']);
    expect(asFlag.code, asFlag.stderr).to.equal(0);
    expect(asFlag.stdout).to.equal('distributed: the node has no active connection\n');
    const wrong = await lrNode(['distribute', node.url, '--user', 'ops', '--password', 'not-the-admin-phrase']);
    expect(wrong.code).to.equal(4);
    expect(wrong.stdout + wrong.stderr).to.not.contain('not-the-admin-phrase');
    // The flag wins over LR_PASSWORD.
    const overrides = await lrNode(['distribute', node.url, '--password', 'cli-admin-phrase-77'], { env: { LR_USER: 'ops', LR_PASSWORD: 'not-the-admin-phrase' } });
    expect(overrides.code, overrides.stderr).to.equal(0);
    const input = path.join(work, 'flag.json');
    fs.writeFileSync(input, JSON.stringify({ documents: (JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Doc[] }).documents.slice(7, 8) }));
    const published = await lrNode(['publish', node.url, input, '--state', 'flag.state', '--report', 'flag.rejected', '--user', 'pub', '--password', PASSWORD], { cwd: work });
    expect(published.code, published.stderr).to.equal(0);
    expect(published.stdout).to.equal(`published 1 documents to ${node.url}: 1 accepted, 0 rejected\n`);
    expect(published.stdout + published.stderr).to.not.contain(PASSWORD);
    const noUser = await lrNode(['publish', node.url, input, '--password', PASSWORD], { cwd: work });
    expect(noUser.code).to.equal(2);
    expect(noUser.stderr).to.equal('publish: a password was given without a user: add --user or LR_USER\n');
    for (const action of ['add', 'passwd']) {
      const refused = await lrNode(['account', action, 'ops', '--password', 'whatever-phrase-1'], { env: { DATA_DIR: node.dataDir } });
      expect(refused.code).to.equal(2);
      expect(refused.stderr).to.match(/^error: unknown option '--password'/);
    }
  });

  it('account: several roles per account; the password only from standard input or a prompt', async () => {
    const dataDir = { DATA_DIR: node.dataDir };
    const added = await lrNode(['account', 'add', 'both', '--role', 'publisher', '--role', 'network_admin', '--password-stdin'], { env: dataDir, stdin: 'two-roles-phrase-42\n' });
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.equal('account both added (publisher,network_admin)\n');
    const listed = await lrNode(['account', 'list', '--json'], { env: dataDir });
    expect((JSON.parse(listed.stdout) as Doc[]).find((a) => a.name === 'both')).to.include({ disabled: false, submitter: 'both' }).and.have.deep.property('roles', ['publisher', 'network_admin']);
    const asBoth = { LR_USER: 'both', LR_PASSWORD: 'two-roles-phrase-42' };
    expect((await lrNode(['distribute', node.url], { env: asBoth })).code).to.equal(0);
    const input = path.join(work, 'one.json');
    fs.writeFileSync(input, JSON.stringify({ documents: JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')).documents.slice(0, 1) }));
    expect((await lrNode(['publish', node.url, input, '--state', 'one.state'], { env: asBoth, cwd: work })).code).to.equal(0);

    const badRole = await lrNode(['account', 'add', 'x', '--role', 'root', '--password-stdin'], { env: dataDir, stdin: 'whatever-phrase-1\n' });
    expect(badRole.code).to.equal(2);
    expect(badRole.stderr).to.equal('account: --role must be publisher or network_admin (give it once per role): root\n');
    const asArgument = await lrNode(['account', 'add', 'x', '--password', 'whatever-phrase-1'], { env: dataDir });
    expect(asArgument.code).to.equal(2);
    expect(asArgument.stderr).to.match(/^error: unknown option '--password'/);
    // Without a terminal the message names what works for an account command: standard input, never LR_PASSWORD.
    for (const args of [['account', 'passwd', 'both'], ['account', 'add', 'envuser']]) {
      const noTerminal = await lrNode(args, { env: { ...dataDir, LR_PASSWORD: 'env-password-phrase-5' } });
      expect(noTerminal.code, args.join(' ')).to.equal(2);
      expect(noTerminal.stderr, args.join(' ')).to.match(/^account: store .+\naccount: no terminal to read the password from: use --password-stdin\n$/);
    }
  });

  it('verify fetches the key from key_location through the SSRF guard: the node\'s own /pubkey only with --allow-private', async () => {
    const corpus = JSON.parse(fs.readFileSync(SAMPLE_CORPUS, 'utf8')) as { documents: Doc[] };
    const input = path.join(work, 'proxy-signed.json');
    // Unsigned, in the account's own name: the node signs it (proxy_sign) with key_location <node>/pubkey.
    fs.writeFileSync(input, JSON.stringify([{ ...without(corpus.documents[5]!, ['digital_signature']), identity: { submitter_type: 'agent', submitter: 'pub' } }]));
    const published = await lrNode(['publish', node.url, input, '--state', 'proxy.state'], { env: env(), cwd: work });
    expect(published.code, published.stderr).to.equal(0);
    const harvested = await lrNode(['harvest', node.url, '--out', 'proxy.jsonl'], { cwd: work });
    expect(harvested.code).to.equal(0);
    const sha = createHash('sha256').update(fs.readFileSync(input)).digest('hex');
    const record = readLines(path.join(work, 'proxy.jsonl')).find((r) => (r.resource_data as Doc).doc_ID === derivedDocId(sha, 0))!;
    expect(((record.resource_data as Doc).digital_signature as Doc).key_location).to.deep.equal([`${node.url}/pubkey`]);
    fs.writeFileSync(path.join(work, 'proxy-record.jsonl'), `${JSON.stringify(record)}\n`);
    const allowed = await lrNode(['verify', 'proxy-record.jsonl', '--allow-private'], { cwd: work });
    expect(allowed.code, allowed.stderr).to.equal(0);
    expect(allowed.stdout).to.match(/^ok\t[0-9a-f]{32}\t[0-9a-f]{40}\n$/);
    const guarded = await lrNode(['verify', 'proxy-record.jsonl'], { cwd: work });
    expect(guarded.code).to.equal(1);
    expect(guarded.stdout).to.match(new RegExp(`^FAIL\\t[0-9a-f]{32}\\tno public key from key_location: ${node.url}/pubkey: .*(loopback|private|not allowed).*\\n$`));
  });

  // A service switched off answers its JSON refusal with 503 and no Retry-After: no retry changes
  // it. lr-node retried it for 31 s, then exited 3 ("unreachable") without the node's reason (an audit's finding).
  it('a service switched off is the node refusing (exit 4, its reason at once), not a store outage to retry', async () => {
    const off = await startTestNode({ nodeConfig: { services: { distribute: { active: false } } } });
    try {
      await addAccount(off, 'ops', 'cli-admin-phrase-77', 'network_admin');
      const started = Date.now();
      const run = await lrNode(['distribute', off.url, '--user', 'ops', '--password-stdin'], { stdin: 'cli-admin-phrase-77\n' });
      expect({ code: run.code, stderr: run.stderr }).to.deep.equal({ code: 4, stderr: 'distribute: POST /distribute: the node refused: the Resource Data Distribution service is not active on this node\n' });
      expect(Date.now() - started).to.be.below(15000);
    } finally {
      await off.stop();
    }
  });

  it('retries a 503 no sooner than its Retry-After asks (3 s, not the 1 s backoff) and a dropped connection after a backoff, and goes on', async () => {
    // The node holds 104 documents by now: two OAI-PMH pages; the second page's request is refused, then dropped.
    const proxy = await startProxy(node.url, { refuse: (n) => n === 2, retryAfter: '3', drop: (n) => n === 3 });
    try {
      const run = await lrNode(['harvest', proxy.url, '--via', 'oai', '--prefix', 'LR_JSON_0.10.0', '--out', 'retry.jsonl'], { cwd: work });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stderr).to.contain(`harvest: ${new URL(proxy.url).host} answered 503, retrying in 3s\n`);
      expect(run.stderr).to.match(new RegExp(`^harvest: cannot reach ${new URL(proxy.url).host}: .+, retrying in 2s$`, 'm'));
      expect(proxy.requests).to.have.length(4);
      const [, refused, afterRefusal, afterDrop] = proxy.times as [number, number, number, number];
      // The 503 went out as request 2 arrived: its retry waited the 3 s asked (the default first backoff is 1 s).
      expect(afterRefusal - refused).to.be.within(2990, 6000);
      expect(afterDrop - afterRefusal).to.be.within(1990, 5000);
      expect(readLines(path.join(work, 'retry.jsonl'))).to.have.length(104);
    } finally {
      await proxy.close();
    }
  });
});
