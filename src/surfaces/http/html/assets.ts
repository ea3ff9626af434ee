/**
 * The pages' only stylesheet and script, served as files (`/assets/…`) so the Content-Security-Policy
 * can allow `'self'` and nothing inline. Each URL carries the content's hash, so it is cached for good.
 */
import { createHash } from 'node:crypto';
import type { Route } from '../route.ts';
import { LIVE_SCRIPT } from './live-script.ts';
import { PAGE_CSS } from './style.ts';

interface Asset {
  path: string;
  type: string;
  body: string;
  href: string;
}

function asset(path: string, type: string, body: string): Asset {
  const v = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path, type, body, href: `${path}?v=${v}` };
}

const STYLESHEET = asset('/assets/noema.css', 'text/css; charset=utf-8', PAGE_CSS);
const LIVE = asset('/assets/live.js', 'text/javascript; charset=utf-8', LIVE_SCRIPT);
// The tab icon: a small SVG. Browsers ask `/favicon.ico` on their own; both paths answer it.
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f2933"/><circle cx="16" cy="16" r="7" fill="none" stroke="#2186eb" stroke-width="3"/><circle cx="16" cy="16" r="2.5" fill="#e4e7eb"/></svg>';
const ICON = asset('/assets/icon.svg', 'image/svg+xml', ICON_SVG);
const FAVICON = { ...ICON, path: '/favicon.ico', href: '/favicon.ico' };

/** The stylesheet's URL, for `<link rel="stylesheet">`. */
export const STYLESHEET_HREF = STYLESHEET.href;
/** The live script's URL, for `<script src>`. */
export const LIVE_SCRIPT_HREF = LIVE.href;
/** The icon's URL, for `<link rel="icon">`. */
export const ICON_HREF = ICON.href;

/** Public (the login page needs its styles), versioned by hash, cached for a year. */
export function assetRoutes(): Route[] {
  return [STYLESHEET, LIVE, ICON, FAVICON].map((a) => ({
    method: 'GET' as const,
    path: a.path,
    public: true,
    internal: true,
    summary: `A static asset of the HTML pages (${a.path})`,
    async handle() {
      return new Response(a.body, {
        headers: { 'content-type': a.type, 'cache-control': 'public, max-age=31536000, immutable' },
      });
    },
  }));
}
