import { loadSettings, type Settings } from './settings.js';
import { loadNodeConfig, type GivenNodeConfig, type NodeConfig } from './node-config.js';

export interface AppConfig { settings: Settings; node: NodeConfig }
/** `given`: what CONFIG gave; undefined without CONFIG, when start-up applies the one an earlier start was given (runtime.ts). */
export interface StartConfig { settings: Settings; given: GivenNodeConfig | undefined }

/** Settings from the environment, then the CONFIG file they name; throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv): StartConfig {
  const settings = loadSettings(env);
  return { settings, given: loadNodeConfig(settings.configPath) };
}

export { ConfigError } from './settings.js';
export type { Settings } from './settings.js';
export type { GivenNodeConfig, NodeConfig, NodePolicy, ServiceKey } from './node-config.js';
export { CONFIG_DEFAULTS, defaultNodeConfig, validateNodeConfig } from './node-config.js';
export { createPolicyReader, type PolicyReader } from './stored-policy.js';
