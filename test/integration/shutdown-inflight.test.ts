/** Graceful shutdown finishes a request that is in flight when the signal arrives. */
import http from 'node:http';
import { expect } from 'chai';
import { startMain, exitOf } from '../support/process.js';
import { tempDir } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

describe('SIGTERM during a request', () => {
  it('the in-flight POST /publish completes, new connections are refused, the process exits 0', async () => {
    const configDir = tempDir();
    const fs = await import('node:fs');
    const configPath = `${configDir}/config.json`;
    fs.writeFileSync(configPath, JSON.stringify({ services: { publish: { service_auth: { service_authz: ['none'] } } } }));
    const running = await startMain({ DATA_DIR: tempDir(), CONFIG: configPath });
    const body = JSON.stringify({ documents: nsdlDocs(2) });
    const url = new URL(`${running.url}/publish`);
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => { text += chunk; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
      // Half the body now; the signal arrives while the request is still being received.
      request.write(body.slice(0, 100));
      setTimeout(() => {
        running.child.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(100)), 300);
      }, 200);
    });
    const { status, text } = await response;
    expect(status).to.equal(200);
    expect(JSON.parse(text)).to.include({ OK: true });
    const { code } = await exitOf(running.child);
    expect(code).to.equal(0);
  });
});
