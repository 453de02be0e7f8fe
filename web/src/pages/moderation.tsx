// The staff area: one page with a tab for each task, the tab (and its filters) in the URL so a
// view can be linked and Back returns to it. Members get a plain refusal, as the API gives them.
import { withQuery, useLoc } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/use-api.ts';
import { AuditLog } from './mod-audit.tsx';
import { Invites } from './mod-invites.tsx';
import { Pending } from './mod-pending.tsx';
import { Reports } from './mod-reports.tsx';
import { Users } from './mod-users.tsx';

const TABS = [
  ['reports', 'Reports'],
  ['pending', 'Pending'],
  ['users', 'Users'],
  ['audit', 'Audit log'],
  ['invites', 'Invites'],
] as const;
type Tab = (typeof TABS)[number][0];

export default function ModerationPage() {
  useTitle('Moderation');
  const loc = useLoc();
  const { user, ready } = useSession();
  if (!ready) return <div class="page" />;
  if (!user || user.role === 'user') {
    return (
      <div class="page narrow">
        <h1>Moderators only</h1>
        <p>This area is for the board's moderators and admins. {user ? 'Your account is a member account.' : <a href="/login?next=/moderation">Sign in</a>}</p>
      </div>
    );
  }
  const admin = user.role === 'admin';
  const tabs = TABS.filter(([t]) => t !== 'invites' || admin);
  const asked = loc.query.get('tab') as Tab | null;
  const tab: Tab = tabs.some(([t]) => t === asked) ? asked! : 'reports';
  const base = { ...loc, query: new URLSearchParams() };
  return (
    <div class="page staff">
      <h1>Moderation</h1>
      <nav class="tabs" aria-label="Moderation sections">
        {tabs.map(([t, label]) => (
          <a key={t} href={withQuery({ tab: t === 'reports' ? undefined : t }, base)} aria-current={tab === t ? 'page' : undefined}>
            {label}
          </a>
        ))}
        <a href="/tag-relations">Tag relations</a>
      </nav>
      {tab === 'reports' && <Reports />}
      {tab === 'pending' && <Pending />}
      {tab === 'users' && <Users admin={admin} />}
      {tab === 'audit' && <AuditLog />}
      {tab === 'invites' && <Invites />}
    </div>
  );
}
