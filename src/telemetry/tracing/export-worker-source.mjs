// The export thread's entry when the gateway runs from TypeScript source (the tests, under
// vitest): tsx, a dev dependency, compiles export-worker.ts. Built gateways load
// dist/telemetry/tracing/export-worker.js directly (export-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('./export-worker.ts');
