import { useEffect, useState } from 'preact/hooks';
import { rateLimit } from '../api/client.ts';
import { useSignal } from '../lib/store.ts';

/** Says how long to wait after a 429, counting down, instead of a page that silently fails. */
export function RateLimitBanner() {
  const limit = useSignal(rateLimit);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!limit) return;
    const t = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= limit.until) rateLimit.set(null);
    }, 1000);
    return () => clearInterval(t);
  }, [limit]);
  if (!limit) return null;
  const seconds = Math.max(1, Math.ceil((limit.until - now) / 1000));
  return (
    <div class="banner" role="status" aria-live="polite" data-testid="rate-limit">
      <strong>Slow down a little.</strong> The server is limiting requests from you: please wait {seconds} second{seconds === 1 ? '' : 's'} before trying again.
      <button type="button" class="link" onClick={() => rateLimit.set(null)}>
        Dismiss
      </button>
    </div>
  );
}
