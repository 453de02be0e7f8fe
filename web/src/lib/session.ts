// Who is signed in, and whether the safe-only view is on.
import { api, banNotice, invalidate } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { signal, useSignal } from './store.ts';

export const session = signal<{ user: User | null; ready: boolean }>({ user: null, ready: false });
export const useSession = () => useSignal(session);

// Asked of /api/auth/session, not /api/auth/me: a visitor is a 200 there, where /api/auth/me's 401
// would show as a failed request in every visitor's console. Only the server knows whether the
// session cookie (HttpOnly, so unseen here) is still good, so no cookie of the page's own stands in for it.
export async function loadSession(): Promise<void> {
  try {
    const { user } = await api<{ user: User | null }>('/api/auth/session');
    session.set({ user, ready: true });
  } catch (err) {
    console.warn('could not read the session', err);
    session.set({ user: null, ready: true });
  }
  safeMode.set(readSafeMode());
}

export async function signIn(username: string, password: string): Promise<void> {
  const { user } = await api<{ user: User }>('/api/auth/login', { method: 'POST', json: { username, password } });
  invalidate();
  session.set({ user, ready: true });
  banNotice.set(null);
  safeMode.set(readSafeMode());
}

export async function signUp(username: string, password: string, email?: string, invite?: string): Promise<void> {
  const json = { username, password, email: email || undefined, invite: invite || undefined };
  const { user } = await api<{ user: User }>('/api/auth/register', { method: 'POST', json });
  invalidate();
  session.set({ user, ready: true });
  banNotice.set(null);
  safeMode.set(readSafeMode());
}

export async function signOut(): Promise<void> {
  await api('/api/auth/logout', { method: 'POST' });
  invalidate();
  session.set({ user: null, ready: true });
  // Another person may sign in next on this browser: the last one's ban is not theirs.
  banNotice.set(null);
  safeMode.set(readSafeMode());
}

// Safe mode: only posts rated safe. On by default for visitors who are not signed in, off for
// members; either can change it, and the choice is remembered on this device.
const KEY = 'ib.safeMode';

function readSafeMode(): boolean {
  const stored = localStorage.getItem(session.get().user ? `${KEY}.member` : KEY);
  if (stored === 'on') return true;
  if (stored === 'off') return false;
  return !session.get().user;
}

export const safeMode = signal<boolean>(true);
export const useSafeMode = () => useSignal(safeMode);

export function setSafeMode(on: boolean): void {
  localStorage.setItem(session.get().user ? `${KEY}.member` : KEY, on ? 'on' : 'off');
  safeMode.set(on);
}
