// The members of the board, for the Users tab: newest first or by name, filtered by role or by
// part of the name, each with what staff need at a glance (role, tier, last visit, a ban in force).
// A name opens that member's ban, role and tier forms.
import { toQuery } from '../api/client.ts';
import type { Member, MemberList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate, shortDate } from '../lib/format.ts';
import { navigate, useLoc, withQuery } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

const LIMIT = 50;
const ROLES = ['user', 'moderator', 'admin'] as const;

function BanCell({ ban }: { ban: Member['ban'] }) {
  if (!ban) return <span class="muted">—</span>;
  return (
    <span class="status status-banned" title={ban.reason}>
      Banned {ban.until ? `until ${shortDate(ban.until)}` : 'for good'}
    </span>
  );
}

/** `search`: only names containing it (after a name that matched no one exactly). */
export function Members({ search }: { search?: string }) {
  useFresh('/api/admin/users');
  const q = useLoc().query;
  const sort = q.get('sort') === 'name' ? 'name' : 'newest';
  const role = (ROLES as readonly string[]).includes(q.get('role') ?? '') ? q.get('role')! : '';
  const page = Math.max(1, Number(q.get('page')) || 1);
  const { data, error } = useApi<MemberList>(`/api/admin/users${toQuery({ search, role, sort: sort === 'name' ? 'name' : undefined, page, limit: LIMIT })}`);
  const pick = (key: string) => (e: Event) => navigate(withQuery({ [key]: (e.target as HTMLSelectElement).value || undefined, page: undefined }));
  return (
    <section class="stack" aria-labelledby="members-h">
      <h2 id="members-h">{search ? `Members whose name contains “${search}”` : 'Members'}</h2>
      <div class="row filters">
        <div class="field">
          <label for="m-sort">Sort</label>
          <select id="m-sort" value={sort === 'name' ? 'name' : ''} onChange={pick('sort')}>
            <option value="">Newest first</option>
            <option value="name">By name</option>
          </select>
        </div>
        <div class="field">
          <label for="m-role">Role</label>
          <select id="m-role" value={role} onChange={pick('role')}>
            <option value="">any</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.users.length === 0 && (
        <Empty>
          <p>No members{search || role ? ' match' : ' yet'}.</p>
        </Empty>
      )}
      {data && data.users.length > 0 && (
        <div class="table-wrap">
          <table class="staff-table">
            <caption class="sr-only">Members, {sort === 'name' ? 'by name' : 'newest first'}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Tier</th>
                <th scope="col">Joined</th>
                <th scope="col">Last seen</th>
                <th scope="col">Ban</th>
              </tr>
            </thead>
            <tbody>
              {data.users.map((u) => (
                <tr key={u.id} data-username={u.username}>
                  <td>
                    <a href={withQuery({ user: u.username, page: undefined, sort: undefined, role: undefined })} title={`Ban, role and tier of ${u.username}`}>
                      {u.username}
                    </a>
                  </td>
                  <td>{u.role}</td>
                  <td>{u.tier}</td>
                  <td>
                    <time dateTime={u.createdAt} title={fullDate(u.createdAt)}>
                      {shortDate(u.createdAt)}
                    </time>
                  </td>
                  <td>
                    {u.lastSeenAt ? (
                      <time dateTime={u.lastSeenAt} title={fullDate(u.lastSeenAt)}>
                        {ago(u.lastSeenAt)}
                      </time>
                    ) : (
                      <span class="muted">never</span>
                    )}
                  </td>
                  <td>
                    <BanCell ban={u.ban} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={page} totalPages={data.pagination.totalPages} />}
    </section>
  );
}
