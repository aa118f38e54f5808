/** Which signal the rescue waits on. `auto` takes the cheapest one the agent's card allows:
 * SubscribeToTask when `capabilities.streaming` is true, else GetTask polling (spec §3.3.4: a
 * non-streaming agent must refuse SubscribeToTask). */
import type { AgentConfig } from '../config/schema.js';
import type { RescueStrategy } from '../exchange/record.js';

export function resolveStrategy(
  configured: AgentConfig['timeoutRescue']['strategy'],
  card: Record<string, unknown> | undefined,
): RescueStrategy {
  if (configured !== 'auto') return configured;
  const capabilities = card?.['capabilities'];
  const streaming =
    !!capabilities && typeof capabilities === 'object' && (capabilities as { streaming?: unknown }).streaming === true;
  return streaming ? 'subscribe' : 'poll';
}
