// Every scenario, in the order a run takes them. Each module exports the same shape:
//
//   { id, title,
//     run(ctx)         → { <results.scenarios key>: data, ... }  measures, logs as it goes
//     render(results)  → lines of its RESULTS.md section ([] when it did not run)
//     profile?(ctx, p) → the load it puts on path p in the profile pass (unmeasured) }
//
// `ctx` is set up by bench/run.mjs: settings, paths (the started paths; a scenario may restart
// them), routes, runDir, cli, upstreamPids, otlpSinkUrl, notes, log.
//
// Run order as it has always been: 7 straight after the unary scenarios whose load it reuses,
// then the streams; 4 and 5 restart the proxies first, 6 brings its own gateway; then the gRPC
// scenarios 8 and 9 (`grpc: true`: the run starts the gRPC upstream and gives every gateway
// variant a gRPC agent only when one of them is selected). A scenario with `optIn: true` (10, the
// fan-in at 10,000 streams; 11, GetTask about a pinned task) runs only when --scenarios names it.
import unaryMessage from './1-unary-message.mjs';
import unaryTask from './2-unary-task.mjs';
import sseStream from './3-sse-stream.mjs';
import sseFanIn from './4-sse-fan-in.mjs';
import largeBody from './5-large-body.mjs';
import timeoutRescue from './6-timeout-rescue.mjs';
import telemetrySideBySide from './7-telemetry-side-by-side.mjs';
import grpcUnary from './8-grpc-unary.mjs';
import grpcStream from './9-grpc-stream.mjs';
import sseFanInScale from './10-sse-fan-in-scale.mjs';
import unaryGetTask from './11-unary-get-task.mjs';

export const SCENARIOS = [
  unaryMessage,
  unaryTask,
  telemetrySideBySide,
  sseStream,
  sseFanIn,
  largeBody,
  timeoutRescue,
  grpcUnary,
  grpcStream,
  sseFanInScale,
  unaryGetTask,
];
