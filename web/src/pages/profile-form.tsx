import { useEffect, useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { Profile } from '../api/types.ts';
import { Avatar } from '../components/avatar.tsx';
import { ErrorNote, Loading, SaveFooter } from '../components/notice.tsx';
import { useApi } from '../lib/use-api.ts';

export function ProfileForm({ username }: { username: string }) {
  const { data, error } = useApi<Profile>(`/api/users/${encodeURIComponent(username)}`);
  return (
    <section id="profile" class="card stack" aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      {error ? <ErrorNote error={error} /> : !data ? <Loading label="Loading your profile…" /> : <ProfileEditor username={username} stored={data} />}
    </section>
  );
}

/**
 * The editor, shown once the profile is read and starting from it (as the filters' editor): a bio
 * filled in by an effect after the first drawing replaced what was typed before it came, and a
 * save before it came stored an empty bio.
 */
function ProfileEditor({ username, stored }: { username: string; stored: Profile }) {
  const [bio, setBio] = useState(stored.bio);
  const [avatar, setAvatar] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [saved, setSaved] = useState<Profile | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(
    () => () => {
      if (preview) URL.revokeObjectURL(preview);
    },
    [preview],
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let profile: Profile;
      if (avatar) {
        const form = new FormData();
        form.append('bio', bio);
        form.append('avatar', avatar, avatar.name);
        profile = await api<Profile>('/api/users/me', { method: 'PATCH', form });
      } else profile = await api<Profile>('/api/users/me', { method: 'PATCH', json: { bio } });
      invalidate(`/api/users/${encodeURIComponent(username)}`);
      setSaved(profile);
      setAvatar(null);
      setPreview(null);
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  const current = preview ?? saved?.avatar ?? stored.avatar;
  return (
    <form class="stack" onSubmit={submit}>
      <div class="row avatar-row">
        <Avatar src={current} name={username} size={72} />
        <div class="field">
          <label for="s-avatar">Avatar</label>
          <input
            id="s-avatar"
            type="file"
            accept="image/jpeg,image/png,image/gif,image/webp,image/avif"
            onChange={(e) => {
              const f = (e.target as HTMLInputElement).files?.[0] ?? null;
              setAvatar(f);
              setPreview(f ? URL.createObjectURL(f) : null);
            }}
          />
          <small class="muted">Cropped to a square, 256 px.</small>
        </div>
      </div>
      <div class="field">
        <label for="s-bio">Bio</label>
        <textarea id="s-bio" rows={4} maxLength={1000} value={bio} onInput={(e) => setBio((e.target as HTMLTextAreaElement).value)} />
        <small class="muted">{bio.length} / 1000</small>
      </div>
      <SaveFooter error={error} saved={saved !== null && 'Profile saved.'} busy={busy} label="Save profile" />
    </form>
  );
}

export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<Error | string | null>(null);
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(false);
    if (next !== again) return setError('The two new passwords differ.');
    setError(null);
    try {
      await api('/api/users/me/password', { method: 'PUT', json: { currentPassword: current, newPassword: next } });
      setDone(true);
      setCurrent('');
      setNext('');
      setAgain('');
    } catch (err) {
      setError(err as Error);
    }
  };
  const input = (id: string, label: string, value: string, set: (v: string) => void, auto: string, min = 1) => (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete={auto}
        required
        minLength={min}
        maxLength={256}
        value={value}
        onInput={(e) => set((e.target as HTMLInputElement).value)}
      />
    </div>
  );
  return (
    <section id="password" class="card stack" aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      <form class="stack" onSubmit={submit}>
        {input('p-current', 'Current password', current, setCurrent, 'current-password')}
        {input('p-new', 'New password (at least 8 characters)', next, setNext, 'new-password', 8)}
        {input('p-again', 'New password again', again, setAgain, 'new-password', 8)}
        <SaveFooter error={error} saved={done && 'Password changed.'} label="Change password" />
      </form>
    </section>
  );
}
