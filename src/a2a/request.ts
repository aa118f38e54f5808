/**
 * Request classification: binding, version, operation and the ids a gateway wants to know,
 * from the request head plus the body fed chunk by chunk. Pure and incremental
 * (principle 3); it never throws on bad input — anything it cannot place becomes
 * operation `unknown` with a finding, and the bytes go on unchanged.
 */
import type { RequestDecoder, RequestDecoderOptions, RequestFacts, RequestHead } from './request-types.js';
import { createJsonBodyReader, type JsonBodyReader, type JsonBodyStatus } from '../codec/json-body.js';
import { scalarOf, typeOfValue, type Json } from '../codec/json-value.js';
import { encodingOf } from './content-encoding.js';
import { usesA2AJson } from './content-type.js';
import { createGrpcRequestDecoder } from './grpc/request.js';
import { FindingSink } from './findings.js';
import { isStreamingOperation, operationForJsonRpcMethod, type Operation, type ProtocolVersion } from './operations.js';
import {
  REQUEST_PLAN,
  historyLengthIn,
  isBlocking,
  isJsonRpcBody,
  jsonRpcMethod,
  jsonRpcParam,
  tenantIn,
  pageTokensIn,
  isPageTokenParam,
  jsonRpcTaskIds,
  messageFacts,
  payloadVersion,
  pushUrl,
  pushUrls,
  namedTaskIds,
  namedContextIds,
  type BodyRoot,
} from './request-body.js';
import { matchRestRoute, tenantFromPrefix, type RestRouteMatch } from './rest-routes.js';
import { classifyUrl, isNonPublic } from './url-host.js';
import { decideVersion } from './version.js';

export type { RequestDecoder, RequestDecoderOptions, RequestFacts, RequestHead } from './request-types.js';

export function createRequestDecoder(head: RequestHead, opts: RequestDecoderOptions): RequestDecoder {
  // gRPC requests are `application/grpc` or `application/grpc+{codec}` ("gRPC over HTTP/2").
  if (isGrpcContentType(head.headers['content-type'])) return createGrpcRequestDecoder(head, opts);
  return new Decoder(head, opts);
}

export function isGrpcContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.trimStart().toLowerCase().startsWith('application/grpc');
}

// A class, not an object literal with a getter: such literals are built on a slow path, which
// showed in the profile of small exchanges (one decoder per request).
class Decoder implements RequestDecoder {
  private readonly body: JsonBodyReader;
  private readonly encoding: string | undefined;
  private encodedBytes = 0;

  constructor(
    private readonly head: RequestHead,
    private readonly opts: RequestDecoderOptions,
  ) {
    this.body = createJsonBodyReader(REQUEST_PLAN, {
      maxBytes: opts.maxBytes,
      parseBufferBytes: opts.parseBufferBytes,
    });
    this.encoding = encodingOf(head.headers['content-encoding']);
  }

  push(chunk: Uint8Array): void {
    if (this.encoding === undefined) this.body.push(chunk);
    else this.encodedBytes += chunk.length;
  }

  end(endOpts: { aborted?: boolean } = {}): RequestFacts {
    if (this.encoding !== undefined) {
      return classify(
        this.head,
        this.opts,
        undefined,
        false,
        'partial',
        this.encodedBytes,
        undefined,
        `request body is ${this.encoding}`,
      );
    }
    const read = this.body.end({ truncated: endOpts.aborted === true });
    const document = read.via === 'parse' && read.status === 'complete' ? read.value : undefined;
    return classify(this.head, this.opts, read.value, read.fields.complete, read.status, read.bytes, document);
  }

  get heldBytes(): number {
    return this.body.heldBytes;
  }
}

/** `doc`: the body (json-value.ts); `complete`: it was read whole, so absent fields are absent. */
function classify(
  head: RequestHead,
  opts: RequestDecoderOptions,
  doc: unknown,
  complete: boolean,
  status: JsonBodyStatus,
  bodyBytes: number,
  document?: unknown,
  partialBecause = 'request body',
): RequestFacts {
  const findings = new FindingSink();
  if (status === 'malformed') findings.add('a2a.invalid-json', 'request body');
  if (status === 'partial') findings.add('gateway.inspect-partial', partialBecause);
  const query = parseQuery(head.query !== '' ? head.query : queryInPath(head.path));
  const versionHeader = head.headers['a2a-version'];
  // An agent routes by path first: a JSON-RPC body posted to a REST route is served as that REST
  // operation (an Express agent does), so it is classified by the route, never by the body.
  const route = matchRestRoute(head.method, head.path);
  // Any array that parses is a batch there, its elements JSON-RPC or not (JSON-RPC 2.0 §6: a
  // lenient agent serves the valid ones); one that does not parse, the agent cannot read either.
  const isJsonRpc = route === undefined && ((Array.isArray(doc) && status !== 'malformed') || isJsonRpcBody(doc));
  const payloadRoot: BodyRoot = isJsonRpc ? 'params' : '';
  const methodVersion = isJsonRpc ? operationForJsonRpcMethod(jsonRpcMethod(doc) ?? '')?.version : undefined;
  const restPath = route === undefined || route.operation === 'AgentCard' ? undefined : route.legacyV1 ? '0.3' : '1.0';
  const { version, signal } = decideVersion(
    {
      header: versionHeader,
      query: query.get('A2A-Version'),
      method: methodVersion,
      restPath,
      payload: payloadVersion(doc, payloadRoot),
    },
    findings,
  );
  // The header decides the version of the exchange; the body is read in the version it is
  // written in, as the agent reads it (wire-reference §6.2: method and route names).
  const wireVersion = methodVersion ?? restPath ?? version;
  const specific = isJsonRpc
    ? jsonRpcFacts(doc, complete, wireVersion, status === 'malformed', findings)
    : route !== undefined
      ? restFacts(route, doc, complete, query, opts, wireVersion, head)
      : unknownRequest(head, findings);
  if (specific.pushUrl !== undefined && isNonPublic(classifyUrl(specific.pushUrl).hostClass)) {
    findings.add('a2a.push-url-private', specific.pushUrl.slice(0, 200));
  }
  // Spelled out rather than spread: spreading the sparse facts object was the single most
  // expensive step of classifying a request (CPU profile), and one shape keeps V8 monomorphic.
  return {
    binding: specific.binding,
    version,
    wireVersion,
    versionSignal: signal,
    versionHeader,
    operation: specific.operation,
    streaming: isStreamingOperation(specific.operation),
    jsonrpcMethod: specific.jsonrpcMethod,
    jsonrpcId: specific.jsonrpcId,
    jsonrpcIdPresent: specific.jsonrpcIdPresent,
    jsonrpcBatch: specific.jsonrpcBatch,
    tenant: specific.tenant,
    a2aJson: usesA2AJson(head.headers),
    restPrefix: specific.restPrefix,
    taskId: specific.taskId,
    contextId: specific.contextId,
    messageId: specific.messageId,
    pushConfigId: specific.pushConfigId,
    blocking: specific.blocking,
    historyLength: specific.historyLength,
    pushUrl: specific.pushUrl,
    pushUrls: specific.pushUrls,
    taskIds: specific.taskIds,
    contextIds: specific.contextIds,
    pageTokens: specific.pageTokens,
    body: status,
    document,
    bodyBytes,
    partial: status === 'partial',
    malformed: status === 'malformed',
    findings: findings.list(),
  };
}

type SpecificFacts = Omit<
  RequestFacts,
  | 'version'
  | 'wireVersion'
  | 'versionSignal'
  | 'versionHeader'
  | 'streaming'
  | 'body'
  | 'bodyBytes'
  | 'partial'
  | 'malformed'
  | 'findings'
>;

/**
 * A JSON-RPC operation comes from the body, so a malformed body leaves it `unknown` (what was
 * read before the error — method name, id — is still reported). A REST operation comes from
 * verb and path and survives a malformed body.
 */
function jsonRpcFacts(
  doc: unknown,
  complete: boolean,
  wireVersion: ProtocolVersion,
  malformed: boolean,
  findings: FindingSink,
): SpecificFacts {
  if (Array.isArray(doc)) {
    findings.add('a2a.jsonrpc-batch');
    return { binding: 'jsonrpc', operation: 'unknown', jsonrpcBatch: malformed ? undefined : true };
  }
  const method = jsonRpcMethod(doc);
  const known = method === undefined || malformed ? undefined : operationForJsonRpcMethod(method);
  const operation = known?.operation ?? 'unknown';
  if (known === undefined && !malformed && (method !== undefined || complete)) {
    findings.add('a2a.unknown-operation', `method ${JSON.stringify((method ?? '').slice(0, 64))}`);
  }
  const id = (doc as Json)?.id;
  const idType = typeOfValue(id);
  const ids = jsonRpcTaskIds(doc, operation, known?.version ?? wireVersion);
  const message =
    operation === 'SendMessage' || operation === 'SendStreamingMessage' ? messageFacts(doc, 'params') : {};
  return {
    binding: 'jsonrpc',
    operation,
    jsonrpcMethod: method,
    jsonrpcId:
      idType === 'string' || idType === 'number' || idType === 'null'
        ? (scalarOf(id) as string | number | null)
        : undefined,
    jsonrpcIdPresent: id !== undefined ? true : complete ? false : undefined,
    tenant: tenantIn(doc, 'params'),
    taskId: ids.taskId,
    pushConfigId: ids.configId,
    contextId: message.contextId ?? (operation === 'ListTasks' ? jsonRpcParam(doc, 'contextId') : undefined),
    messageId: message.messageId,
    blocking: operation === 'SendMessage' ? isBlocking(doc, complete, 'params', wireVersion) : undefined,
    historyLength: historyLengthIn(doc, 'params', operation),
    pushUrl: pushUrl(doc, 'params', operation),
    pushUrls: pushUrls(doc, 'params', operation),
    taskIds: namedTaskIds(doc, 'params', operation, idNamesTask(operation, known?.version ?? wireVersion)),
    contextIds: namedContextIds(doc, 'params', operation),
    pageTokens: operation === 'ListTasks' ? pageTokensIn(doc, 'params') : undefined,
  };
}

/** JSON-RPC `params.id` is the task for the task operations, and for 0.3's push-config calls. */
function idNamesTask(op: Operation, methodVersion: ProtocolVersion): boolean {
  if (op === 'GetTask' || op === 'CancelTask' || op === 'SubscribeToTask') return true;
  const pushConfigCall =
    op === 'GetTaskPushNotificationConfig' ||
    op === 'ListTaskPushNotificationConfigs' ||
    op === 'DeleteTaskPushNotificationConfig';
  return pushConfigCall && methodVersion === '0.3';
}

function restFacts(
  route: RestRouteMatch,
  doc: unknown,
  complete: boolean,
  query: ReadonlyMap<string, string>,
  opts: RequestDecoderOptions,
  wireVersion: ProtocolVersion,
  head: RequestHead,
): SpecificFacts {
  const { operation } = route;
  const message = operation === 'SendMessage' || operation === 'SendStreamingMessage' ? messageFacts(doc, '') : {};
  // GET routes carry request fields as camelCase query parameters (§11.5, wire-reference §1.2).
  const queryHistory =
    operation === 'GetTask' || operation === 'ListTasks' ? parseInteger(query.get('historyLength')) : undefined;
  return {
    binding: 'rest',
    operation,
    restPrefix: route.prefix,
    tenant: restTenant(route, doc, query, opts, wireVersion),
    taskId: route.taskId ?? message.taskId,
    pushConfigId: route.configId,
    contextId: message.contextId ?? (operation === 'ListTasks' ? query.get('contextId') : undefined),
    messageId: message.messageId,
    blocking: operation === 'SendMessage' ? isBlocking(doc, complete, '', wireVersion) : undefined,
    historyLength: queryHistory ?? historyLengthIn(doc, '', operation),
    pushUrl: pushUrl(doc, '', operation),
    pushUrls: pushUrls(doc, '', operation),
    taskIds: namedTaskIds(doc, '', operation, false, route.taskId),
    contextIds: namedContextIds(doc, '', operation),
    pageTokens: operation === 'ListTasks' ? queryPageTokens(head.query, head.path) : undefined,
  };
}

/**
 * A REST call's tenant (§5.7): the `/{tenant}` path segment (proto additional_bindings), else the
 * request's `tenant` field — in the body of a POST, in the query of a GET (§11.5). The a2a-js
 * 1.3.0 REST server reads them in this order and lets the path win (its `tenantMiddleware`).
 */
function restTenant(
  route: RestRouteMatch,
  doc: unknown,
  query: ReadonlyMap<string, string>,
  opts: RequestDecoderOptions,
  wireVersion: ProtocolVersion,
): string | undefined {
  const fromPath = tenantFromPrefix(route.prefix, opts.restBasePaths ?? []);
  if (fromPath !== undefined || wireVersion !== '1.0') return fromPath;
  return tenantIn(doc, '') ?? (query.get('tenant') || undefined);
}

function unknownRequest(head: RequestHead, findings: FindingSink): SpecificFacts {
  findings.add('a2a.unknown-operation', `${head.method.slice(0, 10)} ${head.path.slice(0, 120)}`);
  return { binding: 'unknown', operation: 'unknown' };
}

function queryInPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return '';
  const next = path.indexOf('?', q + 1); // as `split('?')[1]`
  return next < 0 ? path.slice(q + 1) : path.slice(q + 1, next);
}

/** Every non-empty page token of a REST ListTasks target's query — everything after the first
 * `?`, as an agent's query parser takes it — each parameter an agent may read as one, every repetition. */
function queryPageTokens(query: string, path: string): string[] | undefined {
  const q = path.indexOf('?');
  const raw = query !== '' ? query : q < 0 ? '' : path.slice(q + 1);
  const tokens: string[] = [];
  for (const [name, value] of new URLSearchParams(raw)) if (isPageTokenParam(name) && value !== '') tokens.push(value);
  return tokens.length > 0 ? tokens : undefined;
}

const NO_PARAMS: ReadonlyMap<string, string> = new Map();

/** First value of each parameter; names are case-sensitive (§11.5 camelCase). */
function parseQuery(raw: string): ReadonlyMap<string, string> {
  const text = raw.startsWith('?') ? raw.slice(1) : raw;
  if (text === '') return NO_PARAMS;
  const params = new Map<string, string>();
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeQueryPart(eq < 0 ? pair : pair.slice(0, eq));
    if (!params.has(name)) params.set(name, decodeQueryPart(eq < 0 ? '' : pair.slice(eq + 1)));
  }
  return params;
}

function decodeQueryPart(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part; // nothing to decode (the usual case)
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

function parseInteger(raw: string | undefined): number | undefined {
  return raw !== undefined && /^-?\d{1,9}$/.test(raw) ? Number(raw) : undefined;
}
