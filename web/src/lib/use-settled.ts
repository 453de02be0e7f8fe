import { useEffect, useState } from 'preact/hooks';

/**
 * True once `key` (the post on screen) has stayed for `ms`. What is below the picture (comments,
 * similar images, tag counts) waits for it, so stepping through posts with the arrow keys asks
 * only for the posts themselves and stays within the per-minute limits.
 */
export function useSettled(key: string, ms = 1200): boolean {
  const [settled, setSettled] = useState<string | null>(null);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(key), ms);
    return () => clearTimeout(timer);
  }, [key, ms]);
  return settled === key;
}
