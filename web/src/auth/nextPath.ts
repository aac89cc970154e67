// Where to go after signing in: only a path of this site, never another origin.

export const DEFAULT_AFTER_SIGN_IN = '/agent';

/** `next` when it is a same-origin path ("/…", not "//…" nor "/\\…"); else the chat page. */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return DEFAULT_AFTER_SIGN_IN;
  // Browsers read "\" as "/" in URLs ("/\evil.com" is "//evil.com"); control characters
  // and spaces are stripped by URL parsing in ways that can change the meaning.
  if ([...next].some((ch) => ch === '\\' || ch <= ' ' || ch === '\u007f')) return DEFAULT_AFTER_SIGN_IN;
  const base = 'http://same-origin.invalid';
  let url: URL;
  try {
    url = new URL(next, base);
  } catch {
    return DEFAULT_AFTER_SIGN_IN;
  }
  if (url.origin !== base || url.pathname === '/signin') return DEFAULT_AFTER_SIGN_IN;
  return url.pathname + url.search + url.hash;
}

/** The sign-in page's address that comes back to `path` (path + search) afterwards. */
export function signInPathFor(path: string): string {
  if (!path || path === '/' || path.startsWith('/signin')) return '/signin';
  return `/signin?next=${encodeURIComponent(path)}`;
}
