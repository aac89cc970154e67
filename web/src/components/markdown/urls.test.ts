import { describe, expect, it } from 'vitest';
import { isDataImage, isInternalLink, isSafeImageSrc, isSameOriginPath, markdownUrlTransform } from './urls';
import type { HastElement } from './hast';

const img = { type: 'element', tagName: 'img', properties: {}, children: [] } as HastElement;
const a = { type: 'element', tagName: 'a', properties: {}, children: [] } as HastElement;

describe('isSameOriginPath', () => {
  it('accepts paths on this server', () => {
    expect(isSameOriginPath('/api/charts/1.png')).toBe(true);
    expect(isSameOriginPath('/agent/abc?x=1#y')).toBe(true);
  });

  it('refuses other hosts, schemes and tricks', () => {
    for (const url of [
      '//evil.example/x.png',
      '/\\evil.example/x.png',
      '/\t/evil.example/x.png',
      'https://evil.example/x.png',
      'http://localhost:3000/x.png',
      'relative.png',
      'javascript:alert(1)',
      '',
      null,
      undefined,
    ]) {
      expect(isSameOriginPath(url), String(url)).toBe(false);
    }
  });
});

describe('images and links', () => {
  it('loads same-origin and inline raster images only', () => {
    expect(isSafeImageSrc('/api/charts/1.png')).toBe(true);
    expect(isSafeImageSrc('data:image/png;base64,iVBORw0KGgo=')).toBe(true);
    expect(isSafeImageSrc('data:image/webp;base64,AAAA')).toBe(true);
    expect(isSafeImageSrc('data:image/svg+xml;base64,PHN2Zz4=')).toBe(false);
    expect(isSafeImageSrc('data:text/html;base64,PGI+')).toBe(false);
    expect(isSafeImageSrc('https://tracker.example/pixel.gif')).toBe(false);
    expect(isDataImage('data:image/png;base64,<script>')).toBe(false);
  });

  it('treats anchors and server paths as internal links', () => {
    expect(isInternalLink('#section')).toBe(true);
    expect(isInternalLink('/agent')).toBe(true);
    expect(isInternalLink('https://example.com')).toBe(false);
    expect(isInternalLink('mailto:a@b.c')).toBe(false);
  });
});

describe('markdownUrlTransform', () => {
  it('drops javascript:, vbscript: and data: URLs', () => {
    expect(markdownUrlTransform('javascript:alert(1)', 'href', a)).toBe('');
    expect(markdownUrlTransform('JaVaScRiPt:alert(1)', 'href', a)).toBe('');
    expect(markdownUrlTransform(' javascript:alert(1)', 'href', a)).toBe('');
    expect(markdownUrlTransform('vbscript:msgbox', 'href', a)).toBe('');
    expect(markdownUrlTransform('data:text/html;base64,PGI+', 'href', a)).toBe('');
    expect(markdownUrlTransform('data:image/png;base64,AAAA', 'href', a)).toBe('');
  });

  it('keeps web, mail and relative addresses, and inline raster images for <img>', () => {
    expect(markdownUrlTransform('https://example.com/a', 'href', a)).toBe('https://example.com/a');
    expect(markdownUrlTransform('mailto:x@y.z', 'href', a)).toBe('mailto:x@y.z');
    expect(markdownUrlTransform('/api/charts/1.png', 'src', img)).toBe('/api/charts/1.png');
    expect(markdownUrlTransform('data:image/png;base64,AAAA', 'src', img)).toBe('data:image/png;base64,AAAA');
    expect(markdownUrlTransform('data:image/svg+xml;base64,AAAA', 'src', img)).toBe('');
  });
});
