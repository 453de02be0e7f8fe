// The listbox of a combobox (the search box, the tag input): options reached through the input
// (aria-activedescendant), each a name and a note, chosen with the mouse without taking focus.

export interface Suggestion {
  key: string;
  text: string;
  note: string;
}

interface Props {
  id: string;
  label: string;
  show: boolean;
  active: number;
  items: Suggestion[];
  onChoose(index: number): void;
}

export function SuggestionList({ id, label, show, active, items, onChoose }: Props) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA combobox pattern; focus stays in the input (aria-activedescendant)
    <ul id={id} role="listbox" class="combo-list" hidden={!show} aria-label={label}>
      {items.map((s, i) => (
        // biome-ignore lint/a11y/useFocusableInteractive: options of a combobox are reached through the input, not by Tab
        <li
          key={s.key}
          id={`${id}-${i}`}
          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the ARIA combobox pattern
          role="option"
          aria-selected={i === active}
          class={i === active ? 'active' : undefined}
          onMouseDown={(e) => {
            e.preventDefault();
            onChoose(i);
          }}
        >
          <span class="tag-name">{s.text}</span>
          <span class="tag-count">{s.note}</span>
        </li>
      ))}
    </ul>
  );
}
