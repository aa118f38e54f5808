/**
 * The fleet's exchange observer: a placed call holds its replica until the exchange finishes
 * (the picker's measure, pick.ts), and its outcome is the replica's passive health signal
 * (replica-health.ts). Pins are written from the tracker's namings (pins.ts) for agents with several
 * replicas: with one there is nothing to choose.
 */
import type { ExchangeObserver } from '../exchange/exchange.js';
import type { Naming } from '../tasks/tracker.js';
import type { Pins } from './pins.js';

export function fleetObserver(): ExchangeObserver {
  return {
    name: 'fleet',
    onFinish(exchange) {
      const replica = exchange.replica;
      if (replica === undefined) return;
      replica.health.outstanding--;
    },
  };
}

/** Pins what an answer named to the replica that gave it, for agents configured with `upstreams`. */
export function pinNamings(pins: Pins, replicated: (agent: string) => boolean): (naming: Naming) => void {
  return ({ agent, replica, taskId, contextId }) => {
    if (replica === undefined || !replicated(agent)) return;
    if (taskId !== undefined) pins.pin(agent, 'task', taskId, replica);
    if (contextId !== undefined) pins.pin(agent, 'context', contextId, replica);
  };
}
