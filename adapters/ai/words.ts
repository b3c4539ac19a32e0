// Word counting as the summary limit understands it: maximal runs of non-whitespace.

/** The words of `text`: maximal runs of non-whitespace, in order. */
export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/** How many words (see `words`) `text` has. */
export function countWords(text: string): number {
  return words(text).length;
}

/** The first `max` whole words, joined by single spaces. */
export function truncateWords(text: string, max: number): string {
  return words(text).slice(0, max).join(' ');
}
