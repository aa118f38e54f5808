/**
 * Reading /console/api/ (src/console/api-types.ts is the contract). A missing route (the API not
 * mounted), a 401 or a network error comes back as `{ error }` for the view to show, never thrown.
 */
export type Loaded<T> =
  { readonly data: T; readonly error?: undefined } | { readonly data?: undefined; readonly error: string };

export async function getJson<T>(path: string): Promise<Loaded<T>> {
  try {
    const res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!res.ok) {
      const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
      return { error: `${path} answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ''}` };
    }
    return { data: (await res.json()) as T };
  } catch (err) {
    return { error: `${path} could not be read (${err instanceof Error ? err.message : String(err)})` };
  }
}
