import { defaultUrlTransform, type UrlTransform } from 'react-markdown';

// The address policy for model output: what may load by itself (images), what opens in
// this tab (links), and what never passes (javascript:, vbscript:, data: other than the
// few raster image types).

const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;

function currentOrigin(): string | null {
  return typeof window !== 'undefined' && window.location ? window.location.origin : null;
}

/**
 * A path on this server: starts with one "/" (not "//", not "/\", which browsers read as
 * another host), has no control characters or backslashes (which URL parsing drops or
 * turns into "/"), and resolves to this origin.
 */
export function isSameOriginPath(url: string | null | undefined): url is string {
  if (!url || url[0] !== '/' || url[1] === '/' || url[1] === '\\') return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(url)) return false;
  const origin = currentOrigin();
  if (!origin) return true;
  try {
    return new URL(url, origin).origin === origin;
  } catch {
    return false;
  }
}

/** `data:image/(png|jpeg|gif|webp);base64,...` (no SVG: it can carry script). */
export function isDataImage(url: string | null | undefined): url is string {
  return !!url && DATA_IMAGE.test(url);
}

/** An image the page may load by itself: this server's paths and inline raster images. */
export function isSafeImageSrc(url: string | null | undefined): url is string {
  return isSameOriginPath(url) || isDataImage(url);
}

/** A link that stays on this page or server (opens normally, in this tab). */
export function isInternalLink(url: string | null | undefined): url is string {
  return !!url && (url.startsWith('#') || isSameOriginPath(url));
}

/** http(s) addresses: shown as a clickable link in an "Image not loaded" placeholder. */
export function isWebUrl(url: string | null | undefined): url is string {
  return !!url && /^https?:\/\//i.test(url);
}

/**
 * react-markdown's `urlTransform`: its default (only http, https, mailto, irc, xmpp and
 * relative addresses; anything else such as `javascript:` becomes "") plus inline raster
 * images for `<img src>`.
 */
export const markdownUrlTransform: UrlTransform = (url, key, node) => {
  if (key === 'src' && node.tagName === 'img' && isDataImage(url)) return url;
  return defaultUrlTransform(url);
};
