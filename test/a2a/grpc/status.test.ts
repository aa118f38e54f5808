import { decodeErrorInfo, decodeStatus, encodeGrpcStatusDetails } from '@a2a-js/sdk/errors/grpc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  A2A_ERROR_DOMAIN,
  decodeGrpcStatus,
  encodeStatusDetails,
  ERROR_INFO_TYPE_URL,
  GATEWAY_ERROR_DOMAIN,
  percentDecode,
  percentEncodeGrpcMessage,
} from '../../../src/a2a/grpc/status.js';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('decodeGrpcStatus', () => {
  it('reads code, percent-decoded message and the ErrorInfo the SDK writes', () => {
    const details = encodeGrpcStatusDetails(9, 'not cancelable', 'TASK_NOT_CANCELABLE', { taskId: 't-1' });
    const status = decodeGrpcStatus({
      'grpc-status': '9',
      'grpc-message': 'Task %E2%80%9Ct-1%E2%80%9D is 100%25 done',
      'grpc-status-details-bin': b64(details),
    });
    expect(status).toEqual({
      code: 9,
      message: 'Task “t-1” is 100% done',
      reason: 'TASK_NOT_CANCELABLE',
      domain: A2A_ERROR_DOMAIN,
      metadata: { taskId: 't-1' },
    });
  });

  it('takes the Status message when grpc-message is absent, and unpadded base64 (gRPC strips the padding)', () => {
    const details = b64(encodeGrpcStatusDetails(5, 'Task not found', 'TASK_NOT_FOUND')).replace(/=+$/, '');
    expect(decodeGrpcStatus({ 'grpc-status': ['5'], 'grpc-status-details-bin': details })).toMatchObject({
      code: 5,
      message: 'Task not found',
      reason: 'TASK_NOT_FOUND',
    });
  });

  it('OK, missing or invalid status, and details that are no Status', () => {
    expect(decodeGrpcStatus({ 'grpc-status': '0' })).toEqual({ code: 0 });
    expect(decodeGrpcStatus({})).toBeUndefined();
    expect(decodeGrpcStatus(undefined)).toBeUndefined();
    expect(decodeGrpcStatus({ 'grpc-status': 'abc' })).toBeUndefined();
    expect(decodeGrpcStatus({ 'grpc-status': '2', 'grpc-status-details-bin': '////' })).toEqual({ code: 2 });
    expect(decodeGrpcStatus({ 'grpc-status': '2', 'grpc-status-details-bin': '%%%' })).toMatchObject({ code: 2 });
  });

  it('never throws, whatever the trailers', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.uint8Array({ maxLength: 100 }), (code, message, details) => {
        decodeGrpcStatus({ 'grpc-status': code, 'grpc-message': message, 'grpc-status-details-bin': b64(details) });
      }),
    );
  });
});

describe('encodeStatusDetails', () => {
  it('round-trips through the SDK decoders', () => {
    const bytes = encodeStatusDetails({
      code: 5,
      message: 'Task not found',
      reason: 'TASK_NOT_FOUND',
      domain: A2A_ERROR_DOMAIN,
      metadata: { taskId: 't-1', agent: 'echo' },
    });
    const status = decodeStatus(Buffer.from(bytes));
    expect(status).toMatchObject({ code: 5, message: 'Task not found' });
    expect(status.details).toHaveLength(1);
    expect(status.details[0]!.typeUrl).toBe(ERROR_INFO_TYPE_URL);
    expect(decodeErrorInfo(Buffer.from(status.details[0]!.value))).toEqual({
      reason: 'TASK_NOT_FOUND',
      domain: A2A_ERROR_DOMAIN,
      metadata: { taskId: 't-1', agent: 'echo' },
    });
  });

  it('matches the bytes the SDK writes for the same error', () => {
    const ours = encodeStatusDetails({
      code: 5,
      message: 'Task not found',
      reason: 'TASK_NOT_FOUND',
      domain: A2A_ERROR_DOMAIN,
    });
    expect([...ours]).toEqual([...encodeGrpcStatusDetails(5, 'Task not found', 'TASK_NOT_FOUND')]);
  });

  it('round-trips through decodeGrpcStatus', () => {
    const bytes = encodeStatusDetails({
      code: 14,
      message: '',
      reason: 'UPSTREAM_UNAVAILABLE',
      domain: GATEWAY_ERROR_DOMAIN,
    });
    expect(decodeGrpcStatus({ 'grpc-status': '14', 'grpc-status-details-bin': b64(bytes) })).toEqual({
      code: 14,
      message: undefined,
      reason: 'UPSTREAM_UNAVAILABLE',
      domain: GATEWAY_ERROR_DOMAIN,
      metadata: undefined,
    });
  });
});

describe('grpc-message percent-encoding', () => {
  it('encodes bytes outside 0x20–0x7E and %, and nothing else', () => {
    expect(percentEncodeGrpcMessage('plain text: ok!')).toBe('plain text: ok!');
    expect(percentEncodeGrpcMessage('100% “ok”\n')).toBe('100%25 %E2%80%9Cok%E2%80%9D%0A');
  });

  it('round-trips any text, and leaves a malformed escape as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(percentDecode(percentEncodeGrpcMessage(text))).toBe(text);
      }),
    );
    expect(percentDecode('50%zz and %4')).toBe('50%zz and %4');
  });
});
