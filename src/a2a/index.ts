/**
 * Public API of the pure A2A decoders. The proxy feeds copies of request and response chunks;
 * nothing here does I/O, keeps timers or throws on bad input (principles 3 and 5).
 */
export { createRequestDecoder } from './request.js';
export type { RequestDecoder, RequestDecoderOptions, RequestFacts, RequestHead } from './request.js';
export { createResponseDecoder } from './response.js';
export type {
  ErrorFacts,
  ResponseBodyKind,
  ResponseDecoder,
  ResponseDecoderOptions,
  ResponseFacts,
  ResponseHead,
  ResponseTag,
  StreamClosure,
  StreamEventKind,
  StreamFacts,
} from './response.js';
export type { RequestContext } from './checks.js';
export { OPERATIONS, isStreamingOperation, knownJsonRpcMethods, operationForJsonRpcMethod } from './operations.js';
export type { Binding, Operation, ProtocolVersion } from './operations.js';
export { TASK_STATES, isInterrupted, isTerminal, normaliseTaskState } from './task-state.js';
export type { TaskState } from './task-state.js';
export type { VersionSignal } from './version.js';
export { FindingSink, RULES, RULE_IDS } from './findings.js';
export type { Finding, RuleId, RuleInfo, Severity } from './findings.js';
export { cardFindings, cardInterfaceUrls } from './card-findings.js';
export type { CardFindingOptions } from './card-findings.js';
export { classifyUrl, classifyHostname, isNonPublic } from './url-host.js';
export type { ClassifiedUrl, HostClass } from './url-host.js';
export { matchRestRoute, tenantFromPrefix } from './rest-routes.js';
export type { RestRouteMatch } from './rest-routes.js';
