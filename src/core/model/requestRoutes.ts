/**
 * A path with its ids collapsed to `:id` (numbers, UUIDs, long hex, Mongo ObjectIds), for a request no framework
 * named a route pattern of: `/user/42/posts/7` and `/user/9/posts/1` are one route. Also used in the preload.
 */
export function collapseIds(path: string): string {
  if (!path) return '/';
  return path
    .split('/')
    .map((s) =>
      /^\d+$/.test(s) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) || /^(?=.*\d)[0-9a-f]{16,}$/i.test(s)
        ? ':id'
        : s,
    )
    .join('/');
}

/** The row of the samples no request was running for (start-up, timers, idle). */
export const NO_REQUEST = '(no request)';

/** A route's key, as the CLI's `--route` and the Requests view name it: `GET /auth`. */
export function routeKey(method: string, route: string): string {
  return `${method} ${route}`;
}
