/**
 * The project's root directory (package.json, design-docs/, samples/), from the sources
 * (src/config/) or once built (dist/src/config/): one place that knows both layouts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), import.meta.url.endsWith('.ts') ? '../..' : '../../..');
