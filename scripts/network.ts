/**
 * npm run network -- [--nodes 3] [--topology chain|ring] [--base-port 8081] [--data-dir DIR]
 *
 * A small Learning Registry network on loopback: every node with its own port, data directory
 * and embedded store, connected node i → node i+1 (a chain; a ring also connects the last to the
 * first). Each node gets a publisher account and a network_admin account; a source node holds
 * the destination's network_admin credentials for its inbound endpoint (in the `_local/` doc
 * DistributionRepository keeps), and fetches signers' keys from loopback (`allow_private_fetch`).
 * Prints each node's URL and credentials, stays up until Ctrl-C.
 * The multi-node tests build their networks with startNetwork() from here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { loadConfig, type NodeConfig } from '../src/config/index.js';
import { createLogger } from '../src/http/logger.js';
import { startNode, type RunningNode } from '../src/runtime.js';
import { AccountRepository, type AccountRole } from '../src/storage/account-repository.js';
import { hashPassword } from '../src/domain/password.js';
import { createAccount } from '../src/services/auth/accounts.service.js';
import { buildConnections } from '../src/domain/node-documents.js';
import { EXIT, exitCodeOf } from '../src/errors/exit-codes.js';

export interface NetworkNode {
  node: RunningNode;
  name: string;
  dataDir: string;
  publisher: { user: string; password: string };
  admin: { user: string; password: string };
}

export interface NetworkOptions {
  nodes: number;
  topology: 'chain' | 'ring' | 'none';
  basePort?: number;
  dataDir?: string;
  /** Extra CONFIG for node i (merged over the defaults). */
  nodeConfig?: (index: number) => Record<string, unknown>;
  logger?: (index: number) => Logger;
  /** Extra environment of the node whose data directory is `dataDir` (e.g. COUCHDB_URL and DB_PREFIX). */
  env?: (dataDir: string) => Record<string, string>;
}

const secret = (): string => randomBytes(12).toString('base64url');

/** Creates the account, or gives an existing one (a restarted network) this password. */
async function upsertAccount(node: RunningNode, name: string, password: string, role: AccountRole): Promise<void> {
  const accounts = new AccountRepository(node.couch, node.names);
  const existing = await accounts.find(name);
  if (existing) await accounts.update({ ...existing, roles: [role], disabled: false, password: await hashPassword(password), updated: new Date().toISOString() });
  else await createAccount(accounts, { name, roles: [role], password });
}

/** Adds a connectivity document source → destination (taking effect at the next /distribute) and the credentials for it. */
export async function connectNodes(source: NetworkNode, destination: NetworkNode, options: { gateway?: boolean; active?: boolean; credentials?: boolean } = {}): Promise<void> {
  const connection = { destination_node_url: destination.node.publicUrl, gateway_connection: options.gateway ?? false, active: options.active ?? true };
  const [doc] = buildConnections({ connections: [connection] } as NodeConfig, source.node.publicUrl);
  if (!doc) return;
  await source.node.deps.nodes.reconcileNodeDoc(doc._id, () => doc);
  // Also in the CONFIG of a node this script started, which lists every connection at a restart (others are deleted).
  const configPath = source.dataDir ? path.join(source.dataDir, 'config.json') : undefined;
  if (configPath && fs.existsSync(configPath)) {
    const config = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { connections?: { destination_node_url: string }[] };
    config.connections = [...(config.connections ?? []).filter((entry) => entry.destination_node_url !== connection.destination_node_url), connection];
    fs.writeFileSync(configPath, JSON.stringify(config));
  }
  if (options.credentials !== false) await source.node.deps.distribution.repository.setCredentials(destination.node.publicUrl, destination.admin);
}

export async function startNetwork(options: NetworkOptions): Promise<NetworkNode[]> {
  const root = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lr-network-'));
  const started = await Promise.all(Array.from({ length: options.nodes }, async (_, index): Promise<NetworkNode> => {
    const name = `node${index + 1}`;
    const dataDir = path.join(root, name);
    fs.mkdirSync(dataDir, { recursive: true });
    const configPath = path.join(dataDir, 'config.json');
    const extra = options.nodeConfig?.(index) ?? {};
    // Every node's key location is on loopback (http://127.0.0.1:PORT/pubkey), which the node does
    // not fetch from by default: without this no peer could verify a replacement or a deletion
    // document proxy-signed here, and refused them all ("the signer's key could not be fetched").
    const policy = { allow_private_fetch: true, ...(extra.policy as Record<string, unknown> | undefined) };
    fs.writeFileSync(configPath, JSON.stringify({ node: { node_name: name }, ...extra, policy }));
    const port = options.basePort ? String(options.basePort + index) : '0';
    const config = loadConfig({ PORT: port, DATA_DIR: dataDir, CONFIG: configPath, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', ...options.env?.(dataDir) });
    const node = await startNode(config, options.logger?.(index) ?? createLogger(config.settings.logLevel));
    const entry: NetworkNode = { node, name, dataDir, publisher: { user: 'publisher', password: secret() }, admin: { user: 'network', password: secret() } };
    await upsertAccount(node, entry.publisher.user, entry.publisher.password, 'publisher');
    await upsertAccount(node, entry.admin.user, entry.admin.password, 'network_admin');
    return entry;
  }));
  // A ring closes with a link from the last node to the first: with two nodes, each one to the other.
  const links = options.topology === 'none' ? 0 : options.topology === 'ring' && options.nodes > 1 ? options.nodes : options.nodes - 1;
  for (let i = 0; i < links; i += 1) {
    await connectNodes(started[i] as NetworkNode, started[(i + 1) % options.nodes] as NetworkNode);
  }
  return started;
}

export async function stopNetwork(nodes: NetworkNode[]): Promise<void> {
  await Promise.all(nodes.map((entry) => entry.node.close()));
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: { nodes: { type: 'string', default: '3' }, topology: { type: 'string', default: 'chain' }, 'base-port': { type: 'string', default: '8081' }, 'data-dir': { type: 'string' } },
  });
  const count = Number(args.nodes);
  const topology = args.topology;
  const basePort = Number(args['base-port']);
  if (!Number.isInteger(count) || count < 1 || count > 20) throw new Error('--nodes must be 1 to 20');
  if (topology !== 'chain' && topology !== 'ring') throw new Error('--topology must be chain or ring');
  if (!Number.isInteger(basePort) || basePort < 0 || basePort > 65535 - count) throw new Error('--base-port must be a port number (0: free ports)');
  const dataDir = args['data-dir'];
  const nodes = await startNetwork({ nodes: count, topology, basePort, ...(dataDir ? { dataDir: path.resolve(dataDir) } : {}) });
  const ring = topology === 'ring' && count > 2;
  process.stdout.write(`${count} nodes, ${topology}: ${nodes.map((n) => n.name).join(' → ')}${ring ? ` → ${nodes[0]?.name}` : ''}\n\n`);
  for (const entry of nodes) {
    process.stdout.write(`${entry.name}  ${entry.node.publicUrl}  data ${entry.dataDir}\n`);
    process.stdout.write(`  publish:    ${entry.publisher.user} / ${entry.publisher.password}\n`);
    process.stdout.write(`  distribute: ${entry.admin.user} / ${entry.admin.password}\n`);
  }
  process.stdout.write('\nCtrl-C stops the network.\n');
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    stopNetwork(nodes).then(() => process.exit(EXIT.ok), () => process.exit(EXIT.failure));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`network failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(exitCodeOf(error));
  });
}
