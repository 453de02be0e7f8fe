// How /api/docs (Swagger UI, from @fastify/swagger-ui) looks: the board's name and icon in a bar
// of its own, linking back to the board, instead of Fastify's logo. Swagger UI's own top bar is
// left out (BaseLayout): its logo is an SVG with an inline <style>, which the page's
// Content-Security-Policy (style-src 'self') refuses, so every visit logged a violation; and its
// "Explore" box, which loads another site's document, has no use here. Everything is served from
// this server: no CDN.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

/** The board's name, as its pages' header and titles show it. */
export const BOARD_NAME = 'imageboard';

/** The board's icon (the same as the web pages' favicon and header logo). */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="26" height="26" aria-hidden="true">' +
  '<rect width="32" height="32" rx="7" fill="#2563eb"/>' +
  '<rect x="7" y="7" width="8" height="8" rx="2" fill="#fff"/>' +
  '<rect x="17" y="7" width="8" height="8" rx="2" fill="#fff" opacity=".7"/>' +
  '<rect x="7" y="17" width="8" height="8" rx="2" fill="#fff" opacity=".7"/>' +
  '<rect x="17" y="17" width="8" height="8" rx="2" fill="#fff"/>' +
  '</svg>';

// Built with DOM calls and classes only: a style attribute would break the same policy.
const BAR_JS = `(function () {
  var bar = document.createElement('header');
  bar.className = 'board-bar';
  var home = document.createElement('a');
  home.className = 'board-home';
  home.href = '/';
  home.innerHTML = ${JSON.stringify(ICON)};
  var name = document.createElement('span');
  name.textContent = ${JSON.stringify(BOARD_NAME)};
  home.appendChild(name);
  var what = document.createElement('span');
  what.className = 'board-what';
  what.textContent = 'API documentation';
  bar.appendChild(home);
  bar.appendChild(what);
  document.body.insertBefore(bar, document.body.firstChild);
})();
`;

const BAR_CSS = `.board-bar { display: flex; align-items: center; gap: 16px; padding: 10px 20px; border-bottom: 1px solid #e5e7eb; font-family: system-ui, sans-serif; }
.board-home { display: inline-flex; align-items: center; gap: 8px; font-weight: 700; font-size: 1.0625rem; color: #111827; text-decoration: none; }
.board-home:hover span { text-decoration: underline; }
.board-what { color: #6b7280; }
`;

export const docsPageOptions: Pick<FastifySwaggerUiOptions, 'uiConfig' | 'theme'> = {
  uiConfig: { layout: 'BaseLayout' },
  theme: {
    title: `${BOARD_NAME}: API documentation`,
    js: [{ filename: 'board-bar.js', content: BAR_JS }],
    css: [{ filename: 'board-bar.css', content: BAR_CSS }],
    favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON.replace(' aria-hidden="true"', '') }],
  },
};
