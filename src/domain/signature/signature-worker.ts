/** A worker thread of the signature pool (signature-pool.ts): runs the jobs it is sent, in order of arrival. */
import { parentPort } from 'node:worker_threads';
import { SignatureJobs, type SignatureJob } from './signature-jobs.js';

const jobs = new SignatureJobs();
const port = parentPort;
if (!port) throw new Error('signature-worker.ts runs as a worker thread of the signature pool');

port.on('message', (message: { id: number; job: SignatureJob }) => {
  jobs.run(message.job).then(
    (result) => port.postMessage({ id: message.id, result }),
    (error: unknown) => port.postMessage({ id: message.id, error: error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) } }),
  );
});
