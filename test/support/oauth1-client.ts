/** Runs the independent OAuth 1.0 client (oauth1-client.py: Debian's oauthlib) asynchronously, as it talks to a node that may run in this process. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { requireProgram } from './programs.js';

const CLIENT = path.join(path.dirname(new URL(import.meta.url).pathname), 'oauth1-client.py');

export interface OAuthAnswer { status: number; body: string }

/** `request`: url, body (null for none), the four credentials, and the client script's options; one answer per time sent. */
export function oauthRequest(request: Record<string, unknown>): Promise<OAuthAnswer[]> {
  requireProgram('oauthlib');
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/python3', [CLIENT], { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the OAuth client failed: ${stderr || error.message}`));
      else resolve(stdout.trim().split('\n').map((line) => JSON.parse(line) as OAuthAnswer));
    });
    child.stdin?.end(JSON.stringify(request));
  });
}
