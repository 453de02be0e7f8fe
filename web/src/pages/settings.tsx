import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/use-api.ts';
import { ApiKeys } from './api-keys.tsx';
import { FiltersForm } from './filters-form.tsx';
import { PasswordForm, ProfileForm } from './profile-form.tsx';

export default function SettingsPage() {
  useTitle('Settings');
  const { user } = useSession();
  if (!user) {
    return (
      <div class="page narrow">
        <h1>Settings</h1>
        <p>
          <a href="/login?next=/settings">Sign in</a> to change your profile, password, filters and API keys.
        </p>
      </div>
    );
  }
  return (
    <div class="page settings">
      <h1>Settings</h1>
      <nav class="toc" aria-label="Settings sections">
        <a href="#profile">Profile</a>
        <a href="#password">Password</a>
        <a href="#filters">Filters</a>
        <a href="#api-keys">API keys</a>
      </nav>
      <ProfileForm username={user.username} />
      <PasswordForm />
      <FiltersForm />
      <ApiKeys />
    </div>
  );
}
