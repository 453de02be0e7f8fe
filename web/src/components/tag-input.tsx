// A text field with tag suggestions (GET /api/tags?search=...&limit=10), following the ARIA
// combobox pattern: arrows move through the list, Enter or a click takes one, Escape closes it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getCached } from '../api/client.ts';
import type { TagList } from '../api/types.ts';
import { count } from '../lib/format.ts';
import { useImpliedTags } from '../lib/use-implied.ts';
import { SuggestionList } from './suggestion-list.tsx';

interface Props {
  id: string;
  label: string;
  value: string;
  onValue(value: string): void;
  /** ' ' for a search (words), ',' for a tag list. */
  separator: ' ' | ',';
  placeholder?: string;
  hideLabel?: boolean;
  name?: string;
  autoFocus?: boolean;
}

function split(value: string, sep: string): { head: string; token: string } {
  const i = value.lastIndexOf(sep);
  return { head: value.slice(0, i + 1), token: value.slice(i + 1).trimStart() };
}

export function TagInput({ id, label, value, onValue, separator, placeholder, hideLabel, name, autoFocus }: Props) {
  const [items, setItems] = useState<TagList['tags']>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const typed = useRef(false);
  const token = split(value, separator).token.trim();
  // A tag list (not a search) gets the tags its tags imply as they are typed.
  const implied = useImpliedTags(value, onValue, separator === ',');

  useEffect(() => {
    // Past 64 characters no tag matches, and the server would refuse the search (400).
    if (!typed.current || token.length < 1 || token.length > 64) {
      setItems([]);
      return;
    }
    const ctrl = new AbortController();
    const t = setTimeout(() => {
      getCached<TagList>(`/api/tags?search=${encodeURIComponent(token)}&limit=10`, ctrl.signal).then(
        (r) => {
          setItems(r.tags);
          setActive(-1);
          setOpen(r.tags.length > 0);
        },
        () => setItems([]),
      );
    }, 120);
    return () => {
      clearTimeout(t);
      ctrl.abort();
    };
  }, [token]);

  const choose = (name: string) => {
    const { head } = split(value, separator);
    const joiner = separator === ',' && head && !head.endsWith(' ') ? ' ' : '';
    typed.current = false;
    onValue(`${head}${joiner}${name}${separator === ',' ? ', ' : ' '}`);
    setOpen(false);
    setItems([]);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!open || items.length === 0) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const d = e.key === 'ArrowDown' ? 1 : -1;
      setActive((a) => (a + d + items.length) % items.length);
    } else if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) {
      e.preventDefault();
      choose(items[active].name);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
    }
  };

  const listId = `${id}-list`;
  const show = open && items.length > 0;
  return (
    <div class="combo">
      <label for={id} class={hideLabel ? 'sr-only' : 'label'}>
        {label}
      </label>
      <input
        id={id}
        name={name}
        type="text"
        role="combobox"
        autoComplete="off"
        autoCapitalize="off"
        spellcheck={false}
        autoFocus={autoFocus}
        aria-autocomplete="list"
        aria-expanded={show}
        aria-controls={listId}
        aria-activedescendant={show && active >= 0 ? `${listId}-${active}` : undefined}
        placeholder={placeholder}
        value={value}
        onInput={(e) => {
          typed.current = true;
          onValue((e.target as HTMLInputElement).value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setTimeout(() => setOpen(false), 100)}
      />
      <SuggestionList
        id={listId}
        label="Tag suggestions"
        show={show}
        active={active}
        items={items.map((t) => ({ key: t._id, text: t.name, note: count(t.postsCount) }))}
        onChoose={(i) => choose(items[i].name)}
      />
      {implied.length > 0 && (
        <p class="hint" aria-live="polite" data-testid={`${id}-implied`}>
          Added because other tags imply them: {implied.join(', ')}
        </p>
      )}
    </div>
  );
}
