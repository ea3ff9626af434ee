/** The `links` section of a record: `self`, structural links to registered kinds, computed links. */
import type { ResourceKind } from './kind.ts';
import type { Catalog } from './registry.ts';

export function keyOf(kind: ResourceKind, record: Record<string, unknown>): string {
  const field = kind.key.by === 'hash' ? kind.key.field : (kind.key.field ?? kind.key.param);
  return String(record[field]);
}

function defaultRel(field: string): string {
  return field.replace(/_(id|hash)$/, '');
}

export function linksOf(
  catalog: Catalog,
  kind: ResourceKind,
  record: Record<string, unknown>,
): Record<string, string> {
  const links: Record<string, string> = {};
  const self = catalog.hrefOf(kind.kind, keyOf(kind, record));
  if (self) links.self = self;
  for (const rule of kind.links ?? []) {
    if ('href' in rule) {
      const href = rule.href(record);
      if (href) links[rule.rel] = href;
      continue;
    }
    const value = record[rule.field];
    if (value === null || value === undefined || value === '') continue;
    const href = catalog.hrefOf(rule.kind, String(value));
    if (href) links[rule.rel ?? defaultRel(rule.field)] = href;
  }
  return links;
}
