/** npm run account: the command-line account tool, against a running node and against a stopped one. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT, startMain, exitOf } from '../support/process.js';
import { tempDir, basicAuth, postJson } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { storeEnvOf } from '../support/store.js';

function account(env: Record<string, string>, args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/account.ts'), ...args], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...storeEnvOf(env), ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  child.stdin.end(stdin ?? '');
  return exitOf(child, 60000).then(({ code }) => ({ code, stdout, stderr }));
}

describe('npm run account', () => {
  it('adds, lists, disables and enables accounts on a running node; the password never appears', async () => {
    const dataDir = tempDir();
    const running = await startMain({ DATA_DIR: dataDir });
    try {
      const added = await account({ DATA_DIR: dataDir }, ['add', 'carol', '--password-stdin'], 'long-secret-phrase-9\n');
      expect(added.code, added.stderr).to.equal(0);
      expect(added.stdout).to.equal('account carol added (publisher)\n');
      const docs = { documents: nsdlDocs(1) };
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(200);
      const listed = await account({ DATA_DIR: dataDir }, ['list']);
      expect(listed.stdout).to.match(/^carol\tpublisher\tenabled\tsubmitter=carol$/m);
      expect(listed.stdout + added.stdout + added.stderr).to.not.contain('long-secret-phrase-9');
      expect((await account({ DATA_DIR: dataDir }, ['disable', 'carol'])).stdout).to.equal('account carol: disabled\n');
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(401);
      await account({ DATA_DIR: dataDir }, ['enable', 'carol']);
      expect((await postJson(`${running.url}/publish`, docs, { authorization: basicAuth('carol', 'long-secret-phrase-9') })).status).to.equal(200);
    } finally {
      running.child.kill('SIGTERM');
      await exitOf(running.child);
    }
  });

  it('works with no node running (on the embedded store it starts the store itself) and refuses weak passwords and bad names', async () => {
    const dataDir = tempDir();
    const weak = await account({ DATA_DIR: dataDir }, ['add', 'dave', '--password-stdin'], 'short\n');
    expect(weak.code).to.equal(1);
    expect(weak.stderr).to.equal('account: the password must be at least 10 characters long\n');
    const bad = await account({ DATA_DIR: dataDir }, ['add', 'no spaces'], '');
    expect(bad.stderr).to.match(/^account: give an account name/);
    const ok = await account({ DATA_DIR: dataDir }, ['add', 'ops', '--role', 'network_admin', '--password-stdin'], 'long-admin-phrase-7\n');
    expect(ok.stdout).to.equal('account ops added (network_admin)\n');
    const again = await account({ DATA_DIR: dataDir }, ['add', 'ops', '--password-stdin'], 'long-admin-phrase-7\n');
    expect(again.stderr).to.equal('account: account ops exists already\n');
  });
});
