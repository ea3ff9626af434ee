/**
 * Content negotiation for catalog and index routes: `?format=json|html` wins, then `Accept`
 * (a browser's `text/html` before any JSON type), and API clients get JSON by default.
 */
import type { Context } from 'hono';
import { invalidInput } from '../../../core/errors.ts';

export type Format = 'json' | 'html';

export function negotiate(c: Context): Format {
  const format = c.req.query('format');
  if (format === 'json' || format === 'html') return format;
  if (format !== undefined)
    throw invalidInput(
      `format "${format}" is not one of json, html`,
      { format },
      'use ?format=json or ?format=html',
    );
  return acceptsHtmlFirst(c.req.header('accept')) ? 'html' : 'json';
}

/** Like `negotiate` but never throws: for error pages, where the request may be the bad part. */
export function wantsHtml(c: Context): boolean {
  const format = c.req.query('format');
  if (format === 'html') return true;
  if (format === 'json') return false;
  return acceptsHtmlFirst(c.req.header('accept'));
}

function acceptsHtmlFirst(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  if (html < 0) return false;
  const json = accept.indexOf('application/json');
  return json < 0 || html < json;
}
