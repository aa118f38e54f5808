/**
 * A 0.3 dialect: how the objects of the A2A data model (wire-reference §2) are spelled on one 0.3
 * wire, translated to and from their 1.0 JSON spelling. 0.3 had two JSON spellings: JSON-RPC's
 * `kind`-tagged objects with lowercase enums (rpc03.ts, wire-reference §6.3) and HTTP+JSON's
 * ProtoJSON of the 0.3 proto (rest03.ts, §6.4). Each function copies the members it does not
 * translate as they are.
 */
import type { Obj } from './shapes.js';

export interface Dialect {
  /** 1.0 → 0.3. */
  readonly down: ModelMap;
  /** 0.3 → 1.0. */
  readonly up: ModelMap;
}

/** The objects a translated call or answer carries; `where` names the member for refusals. */
export interface ModelMap {
  message(value: unknown, where: string): Obj;
  task(value: unknown, where: string): Obj;
  artifact(value: unknown, where: string): Obj;
  statusUpdate(value: unknown, where: string): Obj;
  artifactUpdate(value: unknown, where: string): Obj;
  /** SendMessage's `configuration` (blocking ⇔ returnImmediately, the push config). */
  sendConfiguration(value: unknown, where: string): Obj;
  /** A push notification config as its set/get/list calls carry it (1.0: flat, with `taskId`). */
  taskPushConfig(value: unknown, where: string): Obj;
}
