// The PouchDB 9 modules and express-pouchdb ship no type declarations; the child entry is
// the only code that touches them, so a minimal surface is declared here.
declare module 'pouchdb-core' {
  interface PouchStatic {
    plugin(plugin: unknown): PouchStatic;
    defaults(options: Record<string, unknown>): PouchStatic;
    new (name: string): { get(id: string): Promise<Record<string, unknown>>; compact(): Promise<unknown> };
  }
  const PouchDB: PouchStatic;
  export default PouchDB;
}
declare module 'pouchdb-adapter-leveldb';
declare module 'pouchdb-adapter-http';
declare module 'pouchdb-mapreduce';
declare module 'pouchdb-replication';
declare module 'pouchdb-find';
declare module 'express-pouchdb' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  type Handler = (req: IncomingMessage, res: ServerResponse) => void;
  function expressPouchDB(pouch: unknown, options: Record<string, unknown>): Handler;
  export default expressPouchDB;
}
declare module 'leveldown' {
  function leveldown(location: string): unknown;
  export default leveldown;
}
