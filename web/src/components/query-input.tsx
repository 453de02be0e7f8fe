// The search box: the query language (docs/search.md) with suggestions for the word under the
// caret (metatag names and values at once, tag names from GET /api/tags after a pause), in the
// ARIA combobox pattern: arrows move, Enter or Tab takes one, Escape closes. A search the server
// refused marks the box invalid and the caret goes to the error on focus; the page that asked
// shows the message (QueryFaultNote, under the id `<id>-error` the box points to).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { getCached } from '../api/client.ts';
import type { TagList } from '../api/types.ts';
import { count } from '../lib/format.ts';
import type { QueryFault } from '../lib/query-fault.ts';
import { metaSuggestions, type Suggestion, tagLike, type Word, wordAt } from '../lib/query-text.ts';
import { SuggestionList } from './suggestion-list.tsx';

interface Props {
  id: string;
  label: string;
  value: string;
  onValue(value: string): void;
  placeholder?: string;
  fault?: QueryFault | null;
}

const MAX_ITEMS = 12;

/** Tag names for `typed`, asked for once typing pauses; a newer word cancels the request. */
function useTagSuggestions(typed: string | null): { typed: string; items: Suggestion[] } {
  const [found, setFound] = useState<{ typed: string; items: Suggestion[] }>({ typed: '', items: [] });
  useEffect(() => {
    // Past 64 characters no tag matches, and the server would refuse the search (400).
    if (typed === null || !tagLike(typed) || typed.length > 64) return;
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      getCached<TagList>(`/api/tags?search=${encodeURIComponent(typed)}&limit=10`, ctrl.signal).then(
        (r) => setFound({ typed, items: r.tags.map((t) => ({ text: t.name, note: count(t.postsCount), complete: true })) }),
        () => undefined, // aborted, or failed: no suggestions, the search itself still works
      );
    }, 150);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [typed]);
  return found;
}

export function QueryInput({ id, label, value, onValue, placeholder, fault }: Props) {
  const input = useRef<HTMLInputElement>(null);
  // The word being typed: set by typing only, so moving the caret through the text opens nothing.
  const [word, setWord] = useState<Word | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const caret = useRef<number | null>(null);
  const tags = useTagSuggestions(word?.typed ?? null);

  const items = word ? [...metaSuggestions(word.typed), ...(tags.typed === word.typed ? tags.items : [])].slice(0, MAX_ITEMS) : [];
  const show = open && items.length > 0;
  const stale = fault && fault.q !== value;

  useLayoutEffect(() => {
    if (caret.current === null || !input.current) return;
    input.current.setSelectionRange(caret.current, caret.current);
    caret.current = null;
  }, [value]);

  const follow = (text: string, at: number) => {
    setWord(wordAt(text, at));
    setActive(-1);
    setOpen(true);
  };

  const choose = (s: Suggestion) => {
    if (!word) return;
    const head = value.slice(0, word.start) + word.head + s.text + word.tail;
    const rest = value.slice(word.end);
    const space = s.complete && !rest.startsWith(' ') ? ' ' : '';
    const next = head + space + rest;
    const at = head.length + (s.complete ? 1 : 0);
    caret.current = at;
    onValue(next);
    // A metatag name goes on to its values; a whole term closes the list.
    if (s.complete) {
      setWord(null);
      setOpen(false);
    } else follow(next, at);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && show) {
      e.preventDefault();
      setOpen(false);
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && items.length) {
      e.preventDefault();
      const d = e.key === 'ArrowDown' ? 1 : -1;
      setOpen(true);
      setActive((a) => (show ? (a + d + items.length) % items.length : d > 0 ? 0 : items.length - 1));
    } else if ((e.key === 'Enter' || e.key === 'Tab') && show && active >= 0) {
      e.preventDefault();
      choose(items[active]);
    } else if (e.key === 'Enter') {
      // Enter with no option chosen searches: the list must not stay over the results.
      setWord(null);
      setOpen(false);
    }
  };

  const onFocus = () => {
    // Keyboard focus lands on the error; a click still puts the caret where it clicked.
    if (fault && !stale && fault.position !== null) input.current?.setSelectionRange(fault.position, fault.position);
  };

  const listId = `${id}-list`;
  const errorId = `${id}-error`;
  return (
    <div class="combo">
      <label for={id} class="sr-only">
        {label}
      </label>
      <input
        ref={input}
        id={id}
        type="text"
        role="combobox"
        autoComplete="off"
        autoCapitalize="off"
        spellcheck={false}
        aria-autocomplete="list"
        aria-expanded={show}
        aria-controls={listId}
        aria-activedescendant={show && active >= 0 ? `${listId}-${active}` : undefined}
        aria-invalid={fault && !stale ? true : undefined}
        aria-describedby={fault ? errorId : undefined}
        placeholder={placeholder}
        value={value}
        onInput={(e) => {
          const el = e.target as HTMLInputElement;
          onValue(el.value);
          follow(el.value, el.selectionStart ?? el.value.length);
        }}
        onKeyDown={onKeyDown}
        onClick={() => setOpen(false)}
        onFocus={onFocus}
        onBlur={() => setTimeout(() => setOpen(false), 100)}
      />
      <SuggestionList
        id={listId}
        label="Search suggestions"
        show={show}
        active={active}
        items={items.map((s) => ({ key: s.text, text: s.text, note: s.note }))}
        onChoose={(i) => choose(items[i])}
      />
    </div>
  );
}
