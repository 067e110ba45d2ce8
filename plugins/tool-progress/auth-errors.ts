/**
 * Error results that no retry by the model can fix: the tool lacks credentials, rights or
 * configuration. Such a tool is blocked at the first occurrence. Matched case-insensitively
 * against the text of an error result only (never a successful one).
 */
export const AUTH_OR_CONFIG_PATTERNS: readonly RegExp[] = [
  /\b401\b/,
  /\b403\b/,
  /\bunauthori[sz]ed\b/i,
  /\bforbidden\b/i,
  /\binvalid[\s_-]*api[\s_-]*key\b/i,
  /\bpermission denied\b/i,
  /\bmissing[\s_-]+(?:configuration|config|credentials?|api[\s_-]*key)\b/i,
];

export function isAuthOrConfigError(text: string): boolean {
  return AUTH_OR_CONFIG_PATTERNS.some((pattern) => pattern.test(text));
}
