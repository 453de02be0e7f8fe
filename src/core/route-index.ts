import FindMyWay from 'find-my-way';
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RouteInfo {
  method: string;
  url: string;
  summary: string;
}

/**
 * Remembers every route as it is added, so the app can answer 405 with Allow, list its own
 * endpoints at GET /api and its methods at GET /api/methods.
 */
export class RouteIndex {
  readonly routes: RouteInfo[] = [];
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly methodsByUrl = new Map<string, Set<string>>();

  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route: RouteOptions) => this.add(route));
  }

  private add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = (route.schema ?? {}) as { summary?: string; hide?: boolean };
    for (const method of methods) {
      let set = this.methodsByUrl.get(route.url);
      if (!set) {
        set = new Set();
        this.methodsByUrl.set(route.url, set);
        this.router.on('GET', route.url, () => {}, { url: route.url });
      }
      set.add(method);
      if (route.url.startsWith('/api') && !schema.hide && schema.summary && method !== 'HEAD') {
        this.routes.push({ method, url: route.url, summary: schema.summary });
      }
    }
  }

  /** Methods accepted on a concrete path, or [] when no route has that path. */
  allowedAt(path: string): string[] {
    const found = this.router.find('GET', path.split('?')[0]);
    if (!found) return [];
    const url = (found.store as { url: string }).url;
    return [...(this.methodsByUrl.get(url) ?? [])].sort();
  }

  /** `GET /api/posts/<id>`-style labels, in registration order. */
  label(route: RouteInfo): string {
    return `${route.method} ${route.url.replace(/:(\w+)/g, '<$1>')}`;
  }
}
