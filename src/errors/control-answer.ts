/**
 * The control apps' own error answers: a JSON body in the A2A REST error shape (wire-reference
 * §4.2: `{error: {code, status, message}}`), never HTML, on both listeners.
 */
import type { Context, Env, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export function errorAnswer(
  c: Context,
  code: ContentfulStatusCode,
  status: string,
  message: string,
  headers?: Record<string, string>,
): Response {
  return c.json({ error: { code, status, message } }, code, headers);
}

/** 404 (with `hint`: where to look instead) for any path the app has no route for, and 500
 * (without the reason) for a handler that threw. */
export function answerMisses<E extends Env>(app: Hono<E>, hint: string): void {
  app.notFound((c) => errorAnswer(c, 404, 'NOT_FOUND', `no route for ${c.req.method} ${c.req.path}; ${hint}`));
  app.onError((_err, c) => errorAnswer(c, 500, 'INTERNAL', 'internal gateway error'));
}
