import { banNotice } from '../api/client.ts';
import { fullDate } from '../lib/format.ts';
import { useSignal } from '../lib/store.ts';

/** Shown when the server refuses a write because the user is banned: the reason and the end. */
export function BanBanner() {
  const ban = useSignal(banNotice);
  if (!ban) return null;
  return (
    <div class="banner banner-ban" role="alert" data-testid="ban-notice">
      <strong>Your account is banned {ban.until ? `until ${fullDate(ban.until)}` : 'permanently'}.</strong> Reason: {ban.reason}. You can still browse and read,
      but not post, comment, vote or edit.
      <button type="button" class="link" onClick={() => banNotice.set(null)}>
        Dismiss
      </button>
    </div>
  );
}
