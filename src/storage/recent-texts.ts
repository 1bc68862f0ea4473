import type { StoredText } from './store.js';

/**
 * Stored texts by key, least recently used dropped first once their total length passes
 * `maxChars`: the objects LevelStore and PostgresStore read lately (a dashboard is read far more often than written).
 */
export class RecentTexts {
  private readonly map = new Map<string, StoredText>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): StoredText | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: StoredText): void {
    if (value.text.length > this.maxChars / 16) return; // a few huge objects must not empty it
    this.delete(key);
    this.map.set(key, value);
    this.chars += value.text.length;
    while (this.chars > this.maxChars) this.delete(this.map.keys().next().value!);
  }

  clear(): void {
    this.map.clear();
    this.chars = 0;
  }

  delete(key: string): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.chars -= v.text.length;
  }
}
