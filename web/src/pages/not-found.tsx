import { useTitle } from '../lib/use-api.ts';

export function NotFound() {
  useTitle('Not found');
  return (
    <div class="page narrow">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <a href="/">Browse the posts</a> or <a href="/tags">look through the tags</a>.
      </p>
    </div>
  );
}
