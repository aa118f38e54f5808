// The admin listener (`admin.listen`, default 127.0.0.1:9464) of every gateway the harness
// starts goes on a free port, so gateways side by side never fight over 9464. A build from
// before the admin listener (`--gateway-cli` pointing at an older release) refuses the key
// (the config schema is strict), so the CLI is asked once whether it knows it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ADMIN = { admin: { listen: { host: '127.0.0.1', port: 0 } } };
const known = new Map();

/** `{ admin: { listen: … } }` for a CLI that has the admin listener, `{}` for one that does not. */
export function adminListenFor(cli) {
  if (!known.has(cli)) {
    const dir = mkdtempSync(path.join(tmpdir(), 'a2a-bench-admin-'));
    const file = path.join(dir, 'probe.yaml');
    writeFileSync(file, JSON.stringify({ ...ADMIN, agents: { a: { url: 'http://127.0.0.1:1' } } }));
    const run = spawnSync(process.execPath, [cli, 'check-config', file], { stdio: 'ignore', timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    known.set(cli, run.status === 0 ? ADMIN : {});
  }
  return known.get(cli);
}
