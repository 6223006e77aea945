/** The first line of the innermost cause: what actually failed (a missing file, a dlopen error). */
export function rootCause(error: unknown): string;
