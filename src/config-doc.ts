import { SETTING_GROUPS, SETTINGS, type Setting } from './config-settings.ts';

// docs/settings.md, rendered from the list of settings. `npm run docs:settings` writes it;
// config-settings.test.ts fails when the file is not what this renders.

const code = (v: string | number) => `\`${v}\``;

function shownDefault(s: Setting): string {
  switch (s.kind) {
    case 'int':
      return code(s.default);
    case 'bool':
      return code(String(s.default));
    case 'choice':
      return code(s.default);
    case 'list':
      return code(s.default.join(','));
    case 'url':
      return 'empty';
    case 'text':
      return s.shown ?? (s.default === '' ? 'empty' : code(s.default));
  }
}

function allowed(s: Setting): string {
  switch (s.kind) {
    case 'int':
      return `${s.min}..${s.max}${s.auto ? `, or ${code('auto')} (${s.auto})` : ''}`;
    case 'bool':
      return '`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)';
    case 'choice':
      return s.values.map(code).join(', ');
    case 'list':
      return `comma list of ${s.values.map(code).join(', ')}`;
    case 'url':
      return `a ${s.protocols.map((p) => code(`${p}//`)).join(' or ')} URL`;
    case 'text':
      return s.allowed;
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderSettingsDoc(settings: readonly Setting[] = SETTINGS): string {
  const out = [
    '# Settings',
    '',
    '<!-- Generated from src/config-settings.ts by `npm run docs:settings`: edit the list there, not this file. -->',
    '',
    'Every setting is an environment variable. The server and `npx imageboard` read theirs in one',
    'place, `src/config.ts`, through the list in `src/config-settings.ts` this page is generated from:',
    'unset or empty is the default, and a bad value stops start-up (or the command) with a message',
    'naming the setting. The few read elsewhere (memory, command line, build) say so in their line.',
    '',
    'To get started, none is needed: the board listens on `127.0.0.1:3000` and keeps a SQLite',
    'database and its media under `./data`. Most boards set `DATA_DIR`, `HOST` and `PORT`; a board on',
    'several machines adds `DATABASE_URL`, `REDIS_URL` and the media store (`MEDIA_STORE`, `S3_*`).',
    '',
  ];
  for (const [group, title] of Object.entries(SETTING_GROUPS)) {
    const rows = settings.filter((s) => s.group === group);
    if (rows.length === 0) continue;
    out.push(`## ${title}`, '', '| Setting | Default | Allowed | Meaning |', '|---|---|---|---|');
    for (const s of rows) out.push(`| ${code(s.name)} | ${cell(shownDefault(s))} | ${cell(allowed(s))} | ${cell(s.meaning)} |`);
    out.push('');
  }
  return out.join('\n');
}
