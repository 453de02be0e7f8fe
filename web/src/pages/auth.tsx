import { useState } from 'preact/hooks';
import { ErrorNote } from '../components/notice.tsx';
import { navigate, useLoc } from '../lib/router.ts';
import { signIn, signUp, useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';
import type { Registration } from '../api/types.ts';

/** Only a path on this site, so `?next=` cannot send anyone elsewhere. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export default function AuthPage({ mode }: { mode: 'login' | 'register' }) {
  const loc = useLoc();
  const { user } = useSession();
  const login = mode === 'login';
  useTitle(login ? 'Sign in' : 'Sign up');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  // An admin may send the code as a link: /register?invite=inv_...
  const [invite, setInvite] = useState(loc.query.get('invite') ?? '');
  const registration = useApi<Registration>(login ? null : '/api/auth/registration').data?.mode;
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(loc.query.get('next'));
  const other = `${login ? '/register' : '/login'}${loc.query.get('next') ? `?next=${encodeURIComponent(next)}` : ''}`;

  if (user) {
    return (
      <div class="page narrow">
        <h1>You are signed in</h1>
        <p>
          Signed in as <strong>{user.username}</strong>. <a href={next}>Continue</a>
        </p>
      </div>
    );
  }

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (login) await signIn(username.trim(), password);
      else await signUp(username.trim(), password, email.trim(), registration === 'invite' ? invite.trim() : undefined);
      navigate(next, { replace: true });
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  if (!login && registration === 'closed') {
    return (
      <div class="page narrow">
        <h1>Registration is closed</h1>
        <p>This board takes no new sign-ups: ask an admin for an account.</p>
        <p>
          Have an account? <a href={other}>Sign in</a>
        </p>
      </div>
    );
  }

  return (
    <div class="page auth">
      <form class="card stack" onSubmit={submit} aria-labelledby="auth-h">
        <h1 id="auth-h">{login ? 'Sign in' : 'Create an account'}</h1>
        <div class="field">
          <label for="a-user">Username</label>
          <input
            id="a-user"
            name="username"
            autoComplete="username"
            required
            minLength={login ? 1 : 3}
            maxLength={32}
            pattern={login ? undefined : '[A-Za-z0-9_.\\-]+'}
            title={login ? undefined : '3-32 letters, digits, _ . or -'}
            value={username}
            onInput={(e) => setUsername((e.target as HTMLInputElement).value)}
            autoFocus
          />
          {!login && <small class="muted">3-32 letters, digits, _ . or -</small>}
        </div>
        {!login && registration === 'invite' && (
          <div class="field">
            <label for="a-invite">Invite code</label>
            <input id="a-invite" name="invite" autoComplete="off" required value={invite} onInput={(e) => setInvite((e.target as HTMLInputElement).value)} />
            <small class="muted">Sign-up here is by invitation: paste the code an admin gave you.</small>
          </div>
        )}
        {!login && (
          <div class="field">
            <label for="a-email">
              Email <span class="muted">(optional)</span>
            </label>
            <input
              id="a-email"
              type="email"
              autoComplete="email"
              maxLength={320}
              value={email}
              onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            />
          </div>
        )}
        <div class="field">
          <label for="a-pass">Password</label>
          <input
            id="a-pass"
            type="password"
            name="password"
            autoComplete={login ? 'current-password' : 'new-password'}
            required
            minLength={login ? 1 : 8}
            maxLength={256}
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
          {!login && <small class="muted">At least 8 characters.</small>}
        </div>
        <ErrorNote error={error} />
        <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
          {busy ? 'Please wait…' : login ? 'Sign in' : 'Sign up'}
        </button>
        <p class="muted center">
          {login ? 'New here? ' : 'Have an account? '}
          <a href={other}>{login ? 'Create an account' : 'Sign in'}</a>
        </p>
      </form>
    </div>
  );
}
