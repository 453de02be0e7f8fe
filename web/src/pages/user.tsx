import { useEffect } from 'preact/hooks';
import { ApiError, toQuery } from '../api/client.ts';
import type { PostList, Profile } from '../api/types.ts';
import { Avatar } from '../components/avatar.tsx';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { PostGrid } from '../components/post-grid.tsx';
import { shortDate } from '../lib/format.ts';
import { restoreScroll, useLoc, withQuery } from '../lib/router.ts';
import { useSafeMode, useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

const PER_PAGE = 48;

function Posts({ name, tab, page, safe }: { name: string; tab: 'uploads' | 'favorites'; page: number; safe: boolean }) {
  const loc = useLoc();
  const q = toQuery({ offset: (page - 1) * PER_PAGE || undefined, limit: PER_PAGE });
  const path =
    tab === 'uploads'
      ? `/api/posts${toQuery({ uploader: name, contentRating: safe ? 'safe' : undefined, offset: (page - 1) * PER_PAGE || undefined, limit: PER_PAGE })}`
      : `/api/users/${encodeURIComponent(name)}/favorites${q}`;
  const { data, error } = useApi<PostList>(path);
  useEffect(() => {
    if (data && loc.kind === 'pop') restoreScroll();
  }, [data]);
  if (error) return <ErrorNote error={error} />;
  if (!data) return <Loading />;
  if (!data.posts.length)
    return (
      <Empty>
        <p>{tab === 'uploads' ? `${name} has not uploaded anything${safe ? ' rated safe' : ''} yet.` : `${name} has no favorites yet.`}</p>
      </Empty>
    );
  return (
    <>
      <PostGrid posts={data.posts} hideUnsafe={safe && tab === 'favorites'} label={tab === 'uploads' ? 'Uploads' : 'Favorites'} />
      <Pager page={page} totalPages={data.totalPages} />
    </>
  );
}

export default function UserPage({ name }: { name: string }) {
  const loc = useLoc();
  const safe = useSafeMode();
  const { user } = useSession();
  const { data: profile, error } = useApi<Profile>(`/api/users/${encodeURIComponent(name)}`);
  useTitle(profile?.username ?? name);
  const tab = loc.query.get('tab') === 'favorites' ? 'favorites' : 'uploads';
  const page = Math.max(1, Number(loc.query.get('page')) || 1);

  if (error) {
    return (
      <div class="page narrow">
        <h1>{error instanceof ApiError && error.status === 404 ? 'No such user' : 'Could not load this profile'}</h1>
        <ErrorNote error={error} />
      </div>
    );
  }
  if (!profile)
    return (
      <div class="page">
        <Loading />
      </div>
    );
  const stats: [string, number][] = [
    ['Uploads', profile.stats.uploads],
    ['Favorites', profile.stats.favorites],
    ['Likes given', profile.stats.likes],
    ['Comments', profile.stats.comments],
  ];
  return (
    <div class="page">
      <header class="profile">
        <Avatar src={profile.avatar} name={profile.username} size={96} />
        <div class="profile-text">
          <h1>{profile.username}</h1>
          <p class="muted">Member since {shortDate(profile.createdAt)}</p>
          {profile.bio && <p class="bio">{profile.bio}</p>}
          {user?.username === profile.username && (
            <a href="/settings" class="btn btn-ghost btn-small">
              Edit profile
            </a>
          )}
        </div>
        <dl class="profile-stats" data-testid="profile-stats">
          {stats.map(([label, n]) => (
            <div key={label}>
              <dd>{n.toLocaleString()}</dd>
              <dt>{label}</dt>
            </div>
          ))}
        </dl>
      </header>
      <nav class="tabs" aria-label="Profile sections">
        <a href={withQuery({ tab: undefined, page: undefined })} aria-current={tab === 'uploads' ? 'page' : undefined}>
          Uploads
        </a>
        <a href={withQuery({ tab: 'favorites', page: undefined })} aria-current={tab === 'favorites' ? 'page' : undefined}>
          Favorites
        </a>
      </nav>
      <Posts name={profile.username} tab={tab} page={page} safe={safe} />
    </div>
  );
}
