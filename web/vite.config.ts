import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Preact's JSX through esbuild directly: no Babel plugin, nothing else to install.
// `npm run web:dev` proxies the API to a server started with `npm start` (port 3000).
const api = process.env.API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { alias: { react: 'preact/compat' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    assetsInlineLimit: 2048,
    reportCompressedSize: true,
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': api, '/media': api, '/static': api },
  },
});
