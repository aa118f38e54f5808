// Summarise a V8 .cpuprofile (from `node --cpu-prof`): top functions by self time, and self
// time grouped by where the code lives (gateway source, a package in node_modules, Node
// internals, GC/idle).
//
//   node bench/profile-summary.mjs FILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Where a function lives, for grouping. */
export function moduleOf(url, functionName) {
  if (!url) {
    if (/^\((garbage collector|idle|program|root)\)$/.test(functionName)) return functionName;
    return '(native / V8)';
  }
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal/*' : url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const m = /\/(dist|src|bench)\/(.*)$/.exec(url);
  if (m) return `${m[1]}/${m[2]}`;
  return url;
}

export function summariseProfile(file, { top = 25 } = {}) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const { samples = [], timeDeltas = [] } = prof;
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the time before sample i; attribute the next delta to this sample.
    const dt = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + Math.max(0, dt));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const fns = new Map();
  const mods = new Map();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n) continue;
    const cf = n.callFrame;
    const name = cf.functionName || '(anonymous)';
    if (name === '(idle)') idleUs += us;
    const where = cf.url ? `${moduleOf(cf.url, name)}:${cf.lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    fns.set(key, { fn: name, where, selfUs: (fns.get(key)?.selfUs ?? 0) + us });
    const mod = moduleOf(cf.url, name);
    mods.set(mod, (mods.get(mod) ?? 0) + us);
  }
  const busyUs = Math.max(1, totalUs - idleUs);
  const rows = [...fns.values()]
    .filter((r) => r.fn !== '(idle)')
    .sort((a, b) => b.selfUs - a.selfUs)
    .slice(0, top)
    .map((r) => ({ ...r, selfMs: r.selfUs / 1000, pctBusy: (100 * r.selfUs) / busyUs }));
  const modules = [...mods.entries()]
    .filter(([m]) => m !== '(idle)')
    .map(([module, us]) => ({ module, selfMs: us / 1000, pctBusy: (100 * us) / busyUs }))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, 15);
  return { file, totalMs: totalUs / 1000, idleMs: idleUs / 1000, busyMs: busyUs / 1000, rows, modules };
}

export function formatSummary(s) {
  const lines = [];
  const seconds = (ms) => (ms / 1000).toFixed(1);
  lines.push(
    `Profile ${path.basename(s.file)}: ${seconds(s.totalMs)} s sampled, ${seconds(s.busyMs)} s busy (not idle)`,
  );
  lines.push('');
  lines.push('| self ms | % of busy | function | where |');
  lines.push('| ---: | ---: | --- | --- |');
  for (const r of s.rows)
    lines.push(`| ${r.selfMs.toFixed(0)} | ${r.pctBusy.toFixed(1)} | \`${r.fn}\` | ${r.where || ''} |`);
  lines.push('');
  lines.push('| self ms | % of busy | grouped by module |');
  lines.push('| ---: | ---: | --- |');
  for (const m of s.modules) lines.push(`| ${m.selfMs.toFixed(0)} | ${m.pctBusy.toFixed(1)} | ${m.module} |`);
  return lines.join('\n');
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const usage = 'usage: node bench/profile-summary.mjs FILE.cpuprofile [--top N]';
  let parsed;
  try {
    parsed = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
  } catch (err) {
    console.error(`${err.message}\n${usage}`);
    process.exit(2);
  }
  const [file] = parsed.positionals;
  if (!file) {
    console.error(usage);
    process.exit(2);
  }
  console.log(formatSummary(summariseProfile(file, { top: Number(parsed.values.top) })));
}
