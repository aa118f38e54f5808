// Scenario 1: unary SendMessage answered by a direct Message (the recorded 251 B capture).
import { unaryScenario } from './unary.mjs';

export default unaryScenario({
  id: 1,
  agent: 'small',
  title: 'SendMessage → Message (251 B)',
  heading: 'unary SendMessage → direct Message (small body)',
});
