import { render } from 'preact';
import { App } from './app.tsx';
import { startRouter } from './lib/router.ts';
import { loadSession } from './lib/session.ts';
import './styles.css';

startRouter();
// Safe mode depends on whether someone is signed in: pages wait for the answer (one request).
loadSession().finally(() => render(<App />, document.getElementById('app')!));
