import http from 'node:http';

/** One server-sent event as a client reads it. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: any;
  /** performance.now() when the event's last line arrived. */
  receivedAt: number;
}

/** An open event stream: what it has read so far, and a way to wait for more. */
export interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** Comment lines (`: keep-alive`). */
  comments: string[];
  /** Whether the server ended the stream. */
  ended: boolean;
  /** The body, for an answer that is not a stream (an error). */
  body: string;
  /** Waits until `count` events of this kind (any kind: '*') have come; fails after `ms`. */
  waitFor(event: string, count?: number, ms?: number): Promise<SseEvent[]>;
  close(): void;
}

/** Opens GET `path` on 127.0.0.1:`port` as an EventSource would, and reads its events as they come. */
export function openStream(port: number, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      const waiters = new Set<() => void>();
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        ended: false,
        body: '',
        waitFor(event, count = 1, ms = 5000) {
          const found = () => stream.events.filter((e) => event === '*' || e.event === event);
          return new Promise((done, fail) => {
            const check = () => {
              if (found().length >= count) {
                cleanup();
                done(found());
              } else if (stream.ended) {
                cleanup();
                fail(new Error(`the stream ended with ${found().length} of ${count} '${event}' events: ${JSON.stringify(stream.events)}`));
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              fail(new Error(`${found().length} of ${count} '${event}' events after ${ms} ms: ${JSON.stringify(stream.events)}`));
            }, ms);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        close: () => req.destroy(),
      };
      const notify = () => {
        for (const w of [...waiters]) w();
      };
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) {
          stream.body += chunk;
          return;
        }
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const e: SseEvent = { id: null, event: 'message', data: null, receivedAt: performance.now() };
          let data: string | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) e.id = line.slice(4);
            else if (line.startsWith('event: ')) e.event = line.slice(7);
            else if (line.startsWith('data: ')) data = (data === null ? '' : `${data}\n`) + line.slice(6);
          }
          if (data !== null) {
            e.data = JSON.parse(data);
            stream.events.push(e);
          }
        }
        notify();
      });
      res.on('end', () => {
        stream.ended = true;
        notify();
      });
      res.on('error', () => {});
      resolve(stream);
    });
    req.on('error', reject);
  });
}
