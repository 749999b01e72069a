/** Simplified Chinese: English text (the key, as in the sources) → its translation. */
export const zhCN: Record<string, string> = {
};
