// `npm run docs:settings`: writes docs/settings.md from the list of settings (src/config-settings.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSettingsDoc } from '../src/config-doc.ts';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'settings.md');
const text = renderSettingsDoc();
const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
if (before === text) {
  console.log(`${path.relative(process.cwd(), file)} is up to date`);
} else {
  fs.writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
