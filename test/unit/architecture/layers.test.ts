/**
 * The layering of src/ is checked by a tool (dependency-cruiser, .dependency-cruiser.cjs, run by
 * `npm run lint`). These tests show the check can fail: a scratch tree with upward imports
 * (domain/ reading config/ among them, even for a type), a cycle, a module outside every layer
 * and inbound distribution reaching Basic Publish through the shared intake are refused, rule by
 * rule; the real src/ passes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../../support/process.js';

const BIN = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

function cruise(cwd: string): { status: number | null; output: string } {
  const result = spawnSync(BIN, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('unit: layers point down only (dependency-cruiser)', function () {
  this.timeout(60000);

  it('the real src/ has no upward import, no cycle, no module outside a layer', () => {
    const { status, output } = cruise(ROOT);
    expect(status, output).to.equal(0);
  });

  it('refuses an upward import, a cycle and a module outside the table', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lr-layers-'));
    const write = (file: string, text: string): void => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    write('src/storage/repo.ts', 'export const repo = 1;\n');
    write('src/domain/rule.ts', "import { repo } from '../storage/repo.js';\nexport const rule = repo;\n");
    // config/ sits above domain/: it validates with domain's rules, which read no setting.
    write('src/config/setting.ts', 'export const setting = 1;\n');
    write('src/domain/configured.ts', "import type { setting } from '../config/setting.js';\nexport type Configured = typeof setting;\n");
    write('src/services/a/a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
    write('src/services/a/b.ts', "import { a } from './a.js';\nexport const b = () => a;\n");
    // Inbound distribution reaching Basic Publish by way of the shared intake, which imports publish.
    write('src/services/publish/publish.ts', 'export const publish = 1;\n');
    write('src/services/intake/checks.ts', "import { publish } from '../publish/publish.js';\nexport const checks = publish;\n");
    write('src/services/distribute/inbound.ts', "import { checks } from '../intake/checks.js';\nexport const inbound = checks;\n");
    write('src/elsewhere/lost.ts', "import { repo } from '../storage/repo.js';\nexport const lost = repo;\n");
    // HTTP in a service folder outside its *.routes.ts / *.http.ts.
    write('src/http/context.ts', 'export const context = 1;\n');
    write('src/services/publish/rules.ts', "import { context } from '../../http/context.js';\nexport const rules = context;\n");
    write('src/services/publish/request.http.ts', "import { context } from '../../http/context.js';\nexport const request = context;\n");
    try {
      const { status, output } = cruise(dir);
      expect(status, output).to.not.equal(0);
      expect(output).to.match(/no-upward-from-domain: src\/domain\/rule\.ts → src\/storage\/repo\.ts/);
      expect(output).to.match(/no-upward-from-domain: src\/domain\/configured\.ts → src\/config\/setting\.ts/);
      expect(output).to.match(/no-cycles: src\/services\/a\/a\.ts/);
      expect(output).to.match(/every-module-in-a-layer: src\/elsewhere\/lost\.ts/);
      expect(output).to.match(/distribution-not-through-publish: src\/services\/distribute\/inbound\.ts → src\/services\/publish\/publish\.ts/);
      expect(output).to.match(/intake-serves-both: src\/services\/intake\/checks\.ts → src\/services\/publish\/publish\.ts/);
      expect(output).to.match(/http-only-in-routes: src\/services\/publish\/rules\.ts → src\/http\/context\.ts/);
      expect(output).to.not.match(/http-only-in-routes: src\/services\/publish\/request\.http\.ts/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
