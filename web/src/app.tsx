import { Header } from './components/header.tsx';
import { BanBanner } from './components/ban-banner.tsx';
import { RateLimitBanner } from './components/rate-limit-banner.tsx';
import { useLoc } from './lib/router.ts';
import { lazyPage } from './lazy.tsx';
import { Browse } from './pages/browse.tsx';
import { NotFound } from './pages/not-found.tsx';

const PostPage = lazyPage(() => import('./pages/post.tsx'));
const TagsPage = lazyPage(() => import('./pages/tags.tsx'));
const TagPage = lazyPage(() => import('./pages/tag.tsx'));
const TagRelationsPage = lazyPage(() => import('./pages/tag-relations.tsx'));
const PoolsPage = lazyPage(() => import('./pages/pools.tsx'));
const PoolPage = lazyPage(() => import('./pages/pool.tsx'));
const UserPage = lazyPage(() => import('./pages/user.tsx'));
const UploadPage = lazyPage(() => import('./pages/upload.tsx'));
const SettingsPage = lazyPage(() => import('./pages/settings.tsx'));
const AuthPage = lazyPage(() => import('./pages/auth.tsx'));
const ResetPage = lazyPage(() => import('./pages/reset.tsx'));
const SearchHelpPage = lazyPage(() => import('./pages/search-help.tsx'));
const ModerationPage = lazyPage(() => import('./pages/moderation.tsx'));
const FeedPage = lazyPage(() => import('./pages/feed.tsx'));

function route(path: string) {
  let m: RegExpMatchArray | null;
  if (path === '/') return <Browse />;
  if ((m = path.match(/^\/posts\/([^/]+)$/))) return <PostPage key={m[1]} id={decodeURIComponent(m[1])} />;
  if (path === '/tags') return <TagsPage />;
  if (path === '/tag-relations') return <TagRelationsPage />;
  if ((m = path.match(/^\/tags\/([^/]+)$/))) return <TagPage key={m[1]} name={decodeURIComponent(m[1])} />;
  if (path === '/pools') return <PoolsPage />;
  if ((m = path.match(/^\/pools\/([^/]+)$/))) return <PoolPage key={m[1]} id={decodeURIComponent(m[1])} />;
  if ((m = path.match(/^\/users\/([^/]+)$/))) return <UserPage key={m[1]} name={decodeURIComponent(m[1])} />;
  if (path === '/upload') return <UploadPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/help/search') return <SearchHelpPage />;
  if (path === '/moderation') return <ModerationPage />;
  if (path === '/feed') return <FeedPage />;
  if (path === '/reset') return <ResetPage />;
  if (path === '/login' || path === '/register') return <AuthPage mode={path === '/login' ? 'login' : 'register'} />;
  return <NotFound />;
}

export function App() {
  const loc = useLoc();
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a real link to #main; the handler also moves focus there */}
      <a
        href="#main"
        class="skip"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <Header />
      <RateLimitBanner />
      <BanBanner />
      <main id="main" tabIndex={-1}>
        {route(loc.path)}
      </main>
      <footer class="foot">
        <span>imageboard</span>
        <a href="/api/docs">API documentation</a>
        <a href="/tags">Tags</a>
        <a href="/pools">Pools</a>
        <a href="/help/search">Search syntax</a>
      </footer>
    </>
  );
}
