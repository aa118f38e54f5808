// Preloaded into a gateway by bench/stream-memory.mjs (`node --expose-gc --import …`): on SIGUSR2
// it collects garbage, then writes process.memoryUsage() (and, if A2A_MEM_SNAPSHOT_DIR is set, a
// heap snapshot) to A2A_MEM_PROBE_FILE. Never loaded by the gateway itself.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';

const out = process.env.A2A_MEM_PROBE_FILE;
const snapshotDir = process.env.A2A_MEM_SNAPSHOT_DIR;
let n = 0;

process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const usage = process.memoryUsage();
  let snapshot = null;
  if (snapshotDir) snapshot = v8.writeHeapSnapshot(path.join(snapshotDir, `probe-${process.pid}-${n++}.heapsnapshot`));
  // After the snapshot: the memoryUsage above is what the answer is about.
  writeFileSync(out, JSON.stringify({ ...usage, snapshot }));
});
