// Oracle for the differential tests: the official canonicalisation, copied
// VERBATIM (tabs included) from the installed DSH 0.1.0-rc.8 packages so that
// `__test__/canonical.test.mjs` can assert each copy still occurs,
// character for character, in the package it came from:
//   parseArguments  <- @deepseek-ai/dsh-agent-loop/lib/index.js (the loop parses model arguments)
//   sortJsonValue, canonicalize <- @deepseek-ai/dsh-repeat-tool-reminder/lib/index.js
// Neither package exports them, hence the copy.

/** Parse model arguments, preserving invalid JSON as text and mapping empty input to `{}`. */
export function parseArguments(raw) {
	try {
		return raw ? JSON.parse(raw) : {};
	} catch {
		return raw;
	}
}
export function sortJsonValue(value) {
	if (Array.isArray(value)) return value.map(sortJsonValue);
	if (value !== null && typeof value === "object") {
		const record = value;
		const sorted = {};
		for (const key of Object.keys(record).sort()) sorted[key] = sortJsonValue(record[key]);
		return sorted;
	}
	return value;
}
/** Canonical string form of a call's arguments: deep key-sort, then stringify. */
export function canonicalize(argumentsValue) {
	return JSON.stringify(sortJsonValue(argumentsValue));
}
/** What the official pipeline computes from the raw argument text. */
export function officialCanonical(raw) {
	return canonicalize(parseArguments(raw));
}

/** The copied functions, by the package file they must occur in verbatim. */
export const COPIED_FROM = {
	'@deepseek-ai/dsh-agent-loop/lib/index.js': [parseArguments],
	'@deepseek-ai/dsh-repeat-tool-reminder/lib/index.js': [sortJsonValue, canonicalize],
};
