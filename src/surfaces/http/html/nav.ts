/** The navigation groups of the browser: every listable catalog kind lands in one group (unknown kinds in "More"). */

const GROUPS: ReadonlyArray<{ title: string; kinds: readonly string[] }> = [
  {
    title: 'Worlds',
    kinds: [
      'worlds',
      'attempts',
      'scenarios',
      'cognition-workflows',
      'cognition-profiles',
      'environments',
      'entities',
    ],
  },
  { title: 'Agents', kinds: ['agents', 'sessions', 'user-profiles'] },
  { title: 'Flowcharts', kinds: ['flowcharts', 'flowchart-runs'] },
  { title: 'Memory', kinds: ['memory-workspaces', 'memories', 'tasks'] },
  { title: 'Traces', kinds: ['source-invocations', 'llm-calls', 'response-sources', 'json-schemas'] },
  { title: 'Engine', kinds: ['runs', 'graphs'] },
];

export interface NavGroup {
  title: string;
  items: NavItem[];
}

export function groupNav(nav: readonly NavItem[]): NavGroup[] {
  const kindOf = (n: NavItem) => n.href.replace(/^\//, '').split(/[/?]/)[0] ?? '';
  const used = new Set<NavItem>();
  const groups: NavGroup[] = [];
  for (const g of GROUPS) {
    const items = g.kinds.flatMap((k) => nav.filter((n) => kindOf(n) === k && !used.has(n)));
    for (const i of items) used.add(i);
    if (items.length) groups.push({ title: g.title, items });
  }
  const rest = nav.filter((n) => !used.has(n));
  if (rest.length) groups.push({ title: 'More', items: rest });
  return groups;
}

export interface NavItem {
  href: string;
  title: string;
}
