// The profile pass: each gateway variant once more, after the measured runs, under
// `node --cpu-prof`, driven with the load of the scenarios that have a `profile` hook; the
// top self-time functions of each profile go into results.profiles.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gatewayPath, repoDir } from './paths.mjs';
import { summariseProfile, formatSummary } from '../profile-summary.mjs';

// One file per thread: CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile, thread 0 the main
// thread; a traced gateway also writes its span export thread's.
const threadOf = (file) => Number(path.basename(file).split('.')[4]);

/** The profiles written into `dir` since `since` (ms), main thread first. */
function profilesSince(dir, since) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= since)
    .sort((a, b) => threadOf(a) - threadOf(b));
}

/** Run one profiled copy of `gp`'s variant under every scenario's profile load; returns its files. */
async function profileOne(ctx, gp, profileDir) {
  const pp = gatewayPath(gp.variant, { profileDir, cli: ctx.cli });
  const since = Date.now();
  ctx.log(`profiling ${gp.name}: unary and SSE load under node --cpu-prof`);
  try {
    await pp.start(ctx);
    for (const s of ctx.scenarios) await s.profile?.(ctx, pp);
  } catch (err) {
    ctx.notes.push(`profile run of ${gp.name} failed: ${err.message}`);
  }
  await pp.stop();
  // The profile is written as the gateway exits: a short pause before looking for it.
  await sleep(200);
  return profilesSince(profileDir, since);
}

/** Profile every gateway path of the run; returns the entries for results.profiles. */
export async function profileGateways(ctx, profileDir) {
  const profiles = [];
  for (const gp of ctx.paths.filter((p) => p.kind === 'gateway')) {
    const files = await profileOne(ctx, gp, profileDir);
    if (files.length === 0) {
      ctx.notes.push(`no .cpuprofile was written for ${gp.name} (did the gateway exit on SIGTERM?)`);
      continue;
    }
    for (const file of files) {
      const summary = summariseProfile(file, { top: 20 });
      const t = threadOf(file);
      const name = t === 0 ? gp.name : `${gp.name}, worker thread ${t} (span export)`;
      profiles.push({ path: name, file: path.relative(repoDir, file), summary });
      ctx.log(formatSummary(summary));
    }
  }
  return profiles;
}
