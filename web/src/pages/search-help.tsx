// /help/search: the search language for people at the search box. docs/search.md says the same
// for operators and API users, at more length; the metatags come from the list the box suggests.
import { METATAGS, ORDERS } from '../lib/metatags.ts';
import { useTitle } from '../lib/use-api.ts';

const EXAMPLES: [string, string][] = [
  ['blue_sky', 'posts tagged blue_sky'],
  ['blue_sky -rain', 'blue_sky but not rain'],
  ['cat or dog', 'either tag'],
  ['~cat ~dog sleeping', 'cat or dog, and sleeping: (cat or dog) sleeping'],
  ['(sky or sea) -night rating:safe', 'parentheses group; metatags mix with tags'],
  ['*_hair order:likes', 'any tag ending in _hair, most liked first'],
  ['user:alice date:2026-01', 'uploaded by alice in January 2026 (UTC)'],
  ['likes:>=10 age:<7d', 'at least 10 likes, from the last seven days'],
  ['type:video duration:..30', 'videos of 30 seconds or less'],
  ['title:"red harbour"', 'the words in the title (quotes keep the space)'],
  ['pool:none -has:comments', 'in no pool, and without comments'],
];

/** One example a metatag; the hashes are cut short, so they are shown, not linked. */
const META_EXAMPLES: Record<string, string> = {
  rating: 'rating:safe,sketchy',
  order: 'order:likes',
  type: 'type:video',
  has: 'has:comments',
  pool: 'pool:any',
  user: 'user:alice',
  fav: 'fav:alice',
  title: 'title:"red harbour"',
  date: 'date:2026-01-01..2026-01-31',
  age: 'age:<7d',
  likes: 'likes:>=10',
  favs: 'favs:1..5',
  comments: 'comments:0',
  tagcount: 'tagcount:<3',
  id: 'id:100..200',
  width: 'width:>=1920',
  height: 'height:<600',
  filesize: 'filesize:>2mb',
  duration: 'duration:10..60',
  sha256: 'sha256:9f86d0…',
  md5: 'md5:5d4114…',
};

const q = (text: string) => `/?q=${encodeURIComponent(text)}`;

function example(name: string) {
  const text = META_EXAMPLES[name] ?? '';
  if (text.endsWith('…')) return <code>{text}</code>;
  return (
    <a href={q(text)}>
      <code>{text}</code>
    </a>
  );
}

export default function SearchHelpPage() {
  useTitle('Search syntax');
  return (
    <article class="page narrow help">
      <h1>Search syntax</h1>
      <p>
        Type tags and metatags into the search box; suggestions appear as you type (arrows to choose, Enter or Tab to take one, Escape to close). Every example
        below is a link that runs it.
      </p>

      <h2>Tags, and, or, not</h2>
      <ul class="help-list">
        <li>
          A word is a tag name, in any case; write spaces inside a name as <code>_</code>. A tag no post has matches nothing.
        </li>
        <li>
          Words side by side must all match (<code>and</code> may be written between them).
        </li>
        <li>
          <code>a or b</code> (or <code>a | b</code>) matches either; <code>and</code> binds tighter, so <code>a b or c</code> is <code>(a b) or c</code>.
        </li>
        <li>
          Parentheses group, up to 10 deep. <code>-word</code> excludes. <code>~a ~b c</code> means <code>(a or b) c</code>.
        </li>
        <li>
          <code>*</code> stands for any letters in a tag name: <code>blue_*</code>, <code>*_hair</code> (the first 100 tags it matches).
        </li>
      </ul>

      <h2>Metatags</h2>
      <p>
        <code>name:value</code>; quote a value with spaces (<code>title:"red harbour"</code>). Any of them but <code>order:</code> can be excluded with{' '}
        <code>-</code> or used inside <code>or</code> and parentheses.
      </p>
      <div class="table-wrap">
        <table class="help-table">
          <thead>
            <tr>
              <th scope="col">Metatag</th>
              <th scope="col">Matches</th>
              <th scope="col">Example</th>
            </tr>
          </thead>
          <tbody>
            {METATAGS.map((m) => (
              <tr key={m.name}>
                <td>
                  <code>{m.name}:</code>
                </td>
                <td>{m.hint}</td>
                <td>{example(m.name)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Numbers, dates and order</h2>
      <ul class="help-list">
        <li>
          A number is exact (<code>likes:5</code>), a comparison (<code>&gt;5</code>, <code>&gt;=5</code>, <code>&lt;5</code>, <code>&lt;=5</code>), a range
          with both ends included (<code>1..5</code>, <code>5..</code>, <code>..5</code>) or a list (<code>1,2,3</code>). <code>filesize:</code> takes{' '}
          <code>kb</code> and <code>mb</code>.
        </li>
        <li>
          <code>date:</code> is a day, month or year in UTC (<code>2026-01-31</code>, <code>2026-01</code>, <code>2026</code>), a comparison or range of those,{' '}
          <code>today</code> or <code>yesterday</code>. <code>age:</code> counts back from now in <code>h</code>, <code>d</code>, <code>w</code>,{' '}
          <code>mo</code>, <code>y</code>: <code>age:&lt;7d</code>.
        </li>
        <li>
          <code>order:</code> once, outside parentheses: {ORDERS.join(', ')}. Newest first without it. While the search has one, the Sort filter shows it.
        </li>
      </ul>

      <h2>Examples</h2>
      <dl class="help-examples">
        {EXAMPLES.map(([text, meaning]) => (
          <div key={text}>
            <dt>
              <a href={q(text)}>
                <code>{text}</code>
              </a>
            </dt>
            <dd>{meaning}</dd>
          </div>
        ))}
      </dl>

      <h2>Limits and errors</h2>
      <p>
        A search may be 1,000 characters and 20 terms long (<code>order:</code> not counted). When the search cannot be read, the message appears where the
        results would be, with the place marked, and the cursor goes there when you return to the search box. The Rating, Likes and date filters apply on top of
        the search.
      </p>
      <p class="hint">
        Programs use the same language: <code>GET /api/posts?q=…</code> (see the <a href="/api/docs">API documentation</a>).
      </p>
    </article>
  );
}
