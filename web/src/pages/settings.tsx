import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/use-api.ts';
import { ApiKeys } from './api-keys.tsx';
import { FiltersForm } from './filters-form.tsx';
import { PasswordForm, ProfileForm } from './profile-form.tsx';
import { SavedSearches } from './saved-searches.tsx';
import { Webhooks } from './webhooks.tsx';

export default function SettingsPage() {
  useTitle('Settings');
  const { user } = useSession();
  if (!user) {
    return (
      <div class="page narrow">
        <h1>Settings</h1>
        <p>
          <a href="/login?next=/settings">Sign in</a> to change your profile, password, filters, API keys, saved searches and webhooks.
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
        <a href="#saved-searches">Saved searches</a>
        <a href="#webhooks">Webhooks</a>
      </nav>
      <ProfileForm username={user.username} />
      <PasswordForm />
      <FiltersForm />
      <ApiKeys />
      <SavedSearches />
      <Webhooks />
    </div>
  );
}
