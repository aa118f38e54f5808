// Scenario 11: unary GetTask about a task the gateway has seen (the ~10 KB Task of scenario 2).
// With task affinity (`gateway+affinity`, `gateway+affinity+redis`) every call is placed by the
// task's pin: read once from the store, then from the process's cache (pins never change,
// src/fleet/pins.ts); side by side with `gateway`, what that read costs per request. Opt-in:
// `--scenarios 11`.
import { TASK_ID, getTaskRequest } from '../lib/payloads.mjs';
import { unaryScenario } from './unary.mjs';

export default unaryScenario({
  id: 11,
  agent: 'task',
  request: getTaskRequest(TASK_ID),
  prime: true,
  optIn: true,
  title: 'GetTask about a pinned task (~10 KB answer)',
  heading: 'unary GetTask about a task the gateway has pinned (~10 KB body)',
});
