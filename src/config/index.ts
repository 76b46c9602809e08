import { loadSettings, type Settings } from './settings.js';
import { loadNodeConfig, type NodeConfig } from './node-config.js';

export interface AppConfig { settings: Settings; node: NodeConfig }
/** `node`: what CONFIG gives; undefined without CONFIG, when start-up reads the stored configuration (runtime.ts). */
export interface StartConfig { settings: Settings; node: NodeConfig | undefined }

/** Settings from the environment, then the CONFIG file they name; throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv): StartConfig {
  const settings = loadSettings(env);
  return { settings, node: loadNodeConfig(settings.configPath) };
}

export { ConfigError } from './settings.js';
export type { Settings } from './settings.js';
export type { NodeConfig, NodePolicy, ServiceKey } from './node-config.js';
export { CONFIG_DEFAULTS, defaultNodeConfig } from './node-config.js';
