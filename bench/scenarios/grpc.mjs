// What scenarios 8 and 9 (gRPC) share: which paths carry gRPC, checked once before measuring,
// and the rows of the paths that are skipped (nginx and node proxy HTTP/1.1 only; a gateway
// whose gRPC port failed the check).
import { checkGrpcPath } from '../lib/grpc-client.mjs';
import { availablePaths } from '../lib/markdown.mjs';

export const NOT_APPLICABLE = 'n/a: no gRPC on this path (HTTP/1.1 proxy)';

/**
 * The started paths with a gRPC address that answer one unary and one short streaming call
 * correctly; `skipped` maps every other path to why (kept in results.json for the table).
 */
export async function grpcPaths(ctx) {
  const paths = [];
  const skipped = {};
  for (const p of ctx.paths) {
    const address = p.grpcAddress?.();
    if (!address) {
      skipped[p.name] = NOT_APPLICABLE;
      continue;
    }
    try {
      await checkGrpcPath(address);
      paths.push(p);
    } catch (err) {
      skipped[p.name] = `gRPC check failed: ${err.message.slice(0, 300)}`;
      ctx.log(`  path ${p.name}: ${skipped[p.name]}`);
    }
  }
  return { paths, skipped };
}

/**
 * One table row per path of the run: `row(p)` for a measured path, else the path and why it
 * was not measured (the reason in the second column, dashes after it).
 */
export function grpcRows(results, key, width, row) {
  const data = results.scenarios[key];
  return availablePaths(results).map((p) => {
    if (data?.byPath?.[p]) return row(p);
    const why = data?.skipped?.[p] ?? 'not measured';
    return [p, why, ...Array.from({ length: width - 2 }, () => '—')];
  });
}

/** `errors` cell: the count (lib/markdown's text) plus the first reason a call failed. */
export function errorsCell(m, results, key, p) {
  const first = results.scenarios[key]?.byPath?.[p]?.rounds?.find((r) => r?.firstError)?.firstError;
  const text = m.errors(p);
  return first ? `${text} (first: ${first})` : text;
}
