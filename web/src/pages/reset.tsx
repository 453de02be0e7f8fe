import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import { ErrorNote } from '../components/notice.tsx';
import { useLoc } from '../lib/router.ts';
import { session } from '../lib/session.ts';
import { useTitle } from '../lib/use-api.ts';

/** /reset?token=...: the link `imageboard user reset-password` prints. */
export default function ResetPage() {
  useTitle('Set a new password');
  const token = useLoc().query.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<Error | string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  if (done) {
    return (
      <div class="page narrow">
        <h1>Password set</h1>
        <p role="status">Every session of your account was signed out.</p>
        <p>
          <a href="/login">Sign in</a> with the new password.
        </p>
      </div>
    );
  }
  if (!token) {
    return (
      <div class="page narrow">
        <h1>Set a new password</h1>
        <ErrorNote error="This address has no reset token: open the whole link you were given." />
      </div>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    if (password !== again) return setError('The two passwords differ.');
    setBusy(true);
    setError(null);
    try {
      await api('/api/auth/reset', { method: 'POST', json: { token, password } });
      // The server ended every session of the account, this browser's too if it was signed in.
      invalidate();
      session.set({ user: null, ready: true });
      setDone(true);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const field = (id: string, label: string, value: string, set: (v: string) => void) => (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        maxLength={256}
        value={value}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
      />
    </div>
  );

  return (
    <div class="page auth">
      <form class="card stack" onSubmit={submit} aria-labelledby="reset-h">
        <h1 id="reset-h">Set a new password</h1>
        {field('r-new', 'New password (at least 8 characters)', password, setPassword)}
        {field('r-again', 'New password again', again, setAgain)}
        <ErrorNote error={error} />
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Please wait…' : 'Set password'}
        </button>
      </form>
    </div>
  );
}
