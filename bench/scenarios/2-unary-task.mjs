// Scenario 2: unary SendMessage answered by a completed Task with three artifacts (~10 KB).
import { TASK_10K_RESPONSE } from '../lib/payloads.mjs';
import { unaryScenario } from './unary.mjs';

export default unaryScenario({
  id: 2,
  agent: 'task',
  title: `SendMessage → Task with artifacts (${TASK_10K_RESPONSE.length} B)`,
  heading: 'unary SendMessage → Task with artifacts (~10 KB body)',
});
