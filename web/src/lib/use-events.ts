import { useEffect, useRef } from 'preact/hooks';

/**
 * Listens to a live event stream (`GET /api/events`, server-sent events) while `url` is set: each
 * named event's JSON goes to its handler. The browser's EventSource reconnects by itself and
 * resumes with Last-Event-ID, so nothing is missed across a dropped connection.
 */
export function useEvents(url: string | null, handlers: Record<string, (data: any) => void>): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (!url || typeof EventSource === 'undefined') return;
    const source = new EventSource(url);
    for (const name of Object.keys(current.current)) {
      source.addEventListener(name, (e) => current.current[name]?.(JSON.parse((e as MessageEvent<string>).data)));
    }
    return () => source.close();
  }, [url]);
}
