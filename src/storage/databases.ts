/** Names of the node's databases; DB_PREFIX lets several nodes share one CouchDB. */
export interface DatabaseNames {
  resourceData: string;
  incoming: string;
  /** Arrived documents whose refusal may pass, kept to be tried again (distribution-parked.ts). */
  incomingParked: string;
  node: string;
  community: string;
  network: string;
  accounts: string;
}

/** Keys are the folder names under design-docs/. */
export type DatabaseKey = 'resource_data' | 'incoming' | 'incoming_parked' | 'node' | 'community' | 'network' | 'accounts';

export function databaseNames(prefix: string): DatabaseNames {
  return {
    resourceData: `${prefix}resource_data`,
    incoming: `${prefix}incoming`,
    incomingParked: `${prefix}incoming_parked`,
    node: `${prefix}node`,
    community: `${prefix}community`,
    network: `${prefix}network`,
    accounts: `${prefix}accounts`,
  };
}

export function databaseByKey(names: DatabaseNames, key: DatabaseKey): string {
  const map: Record<DatabaseKey, string> = {
    resource_data: names.resourceData,
    incoming: names.incoming,
    incoming_parked: names.incomingParked,
    node: names.node,
    community: names.community,
    network: names.network,
    accounts: names.accounts,
  };
  return map[key];
}
