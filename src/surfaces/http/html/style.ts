/** The browser's stylesheet: one small sheet for every page (light, dense, readable on a phone). */
import { PICTURES_CSS } from '../../pictures/style.ts';

export const PAGE_CSS = `
:root{--ink:#1f2933;--muted:#66727f;--line:#e4e7eb;--bg:#f7f8fa;--card:#fff;--accent:#2163c4;--ok:#2f9e77;--bad:#d64545;--warn:#c98a00;--run:#2186eb}
*{box-sizing:border-box}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg);margin:0;display:flex;min-height:100vh}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
main p a,main li a,main pre a,main h3 a,main dd a,main td a,.msg a{text-decoration:underline;text-decoration-thickness:1px;text-underline-offset:2px}
nav.side{background:#1f2933;color:#cbd2d9;width:15em;flex:none;padding:1em .9em;position:sticky;top:0;height:100vh;overflow:auto}
nav.side a{color:#e4e7eb;display:block;padding:.12em .4em;border-radius:4px}
nav.side a:hover,nav.side a.here{background:#323f4b;text-decoration:none}
nav.side .brand{font-size:1.25em;font-weight:700;color:#fff;padding:.1em .4em .5em}
nav.side h4{margin:.9em 0 .2em;padding:0 .4em;font-size:.72em;letter-spacing:.08em;text-transform:uppercase;color:#9aa5b1}
nav.side form{margin-top:1.2em}nav.side form.nav-search{margin:.2em 0 .4em;display:flex;flex-wrap:wrap;gap:.3em}nav.side .nav-search label{font-size:.78em;color:#cbd2d9;width:100%}nav.side .nav-search input{flex:1;min-width:0;padding:.2em .3em;border-radius:4px;border:1px solid #52606d;background:#323f4b;color:#fff}
pre.streaming{border-left:3px solid #2186eb;white-space:pre-wrap}pre.streaming[hidden]{display:none}
.search-hits{padding-left:1.4em}.search-hits li{margin:.6em 0}.search-hits .snippet{margin:.15em 0;overflow-wrap:anywhere}.search-hits mark{background:#fff3c4;color:inherit}nav.side button{background:none;border:1px solid #52606d;color:#cbd2d9;border-radius:4px;padding:.2em .7em;cursor:pointer}
main{padding:1.2em 2em 3em;flex:1;min-width:0;max-width:1180px}
h1{font-size:1.45em;margin:.2em 0 .5em;word-break:break-all}h2{font-size:1.1em;margin:1.6em 0 .5em}h3{font-size:1em;margin:1em 0 .3em}
.crumbs{color:var(--muted);font-size:.9em;margin-bottom:.2em}.crumbs a{color:var(--muted)}
table{border-collapse:collapse;font-size:13px;background:var(--card);width:100%}
td,th{border-bottom:1px solid var(--line);padding:.35em .6em;text-align:left;vertical-align:top}
th{font-weight:600;color:#4b5663;font-size:12px;background:#f0f2f5}
.scroll{overflow-x:auto}
pre{background:#fbfbfc;border:1px solid var(--line);border-radius:6px;padding:.8em;overflow:auto;white-space:pre-wrap;word-break:break-word;font-size:12.5px;max-height:36em}
code{font-size:12.5px;background:#eef1f4;color:#323f4b;padding:0 .25em;border-radius:3px}
.muted{color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(11em,1fr));gap:.8em;margin:.5em 0 1em}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8em 1em}
.card .n{font-size:1.8em;font-weight:700;line-height:1.1}.card .l{color:var(--muted);font-size:.85em}
.panel{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8em 1em;margin:.8em 0}
.badge{display:inline-block;padding:0 .55em;border-radius:999px;font-size:12px;font-weight:600;background:#e4e7eb;color:#323f4b}
.badge.s-committed,.badge.s-completed,.badge.s-succeeded,.badge.s-idle{background:#d7f5e8;color:#146c4f}
.badge.s-failed,.badge.s-interrupted,.badge.s-cancelled{background:#ffe3e3;color:#a61b1b}
.badge.s-running,.badge.s-queued{background:#dceefe;color:#0b5cad}
.badge.s-waiting{background:#fff3c4;color:#8d6200}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;font-size:13px}.kv dt{color:var(--muted)}.kv dd{margin:0;word-break:break-all}
.chain{display:flex;flex-wrap:wrap;gap:.3em;align-items:center;font-size:13px;margin:.4em 0 1em}
.chain a,.chain span{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.15em .6em}
.chain .sep{border:none;background:none;padding:0;color:var(--muted)}
.msg{border-left:3px solid #9aa5b1;background:var(--card);margin:.5em 0;padding:.4em .8em;border-radius:0 6px 6px 0}
.msg.role-system{border-color:#9446ed}.msg.role-user{border-color:var(--run)}.msg.role-assistant{border-color:var(--ok)}.msg.role-tool{border-color:var(--warn)}
.msg .role{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.msg pre{border:none;background:none;padding:.2em 0;margin:0;max-height:20em}
.change td.before{color:#a61b1b;text-decoration:line-through;text-decoration-color:#e6a0a0}.change td.after{color:#146c4f}
.picture-box{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.5em;overflow-x:auto}
/* A graph is drawn at its own size, never shrunk to the page: its node text stays legible and a wide graph scrolls sideways. */
.picture-box svg.graph{max-width:none}
.turns{display:flex;flex-wrap:wrap;gap:.25em;margin:.3em 0}.turns a,.turns span{border:1px solid var(--line);border-radius:4px;padding:0 .45em;background:var(--card);font-size:12px}
.turns .here{background:var(--accent);color:#fff;border-color:var(--accent)}
.pager{display:flex;justify-content:space-between;align-items:center;gap:1em;margin:.3em 0 .8em;font-size:13px}.pager a{border:1px solid var(--line);border-radius:4px;padding:.15em .6em;background:var(--card);white-space:nowrap}
.live-dot{display:inline-block;width:.6em;height:.6em;border-radius:50%;background:var(--run);margin-right:.3em;animation:pulse 1.2s infinite}
@keyframes pulse{50%{opacity:.3}}
details>summary{cursor:pointer;color:var(--accent);margin:.6em 0}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:1em}
tr.changed{background:#fffbea}
.legend{font-size:12px;color:var(--muted);margin:.3em 0}.legend .key{margin-right:.8em;white-space:nowrap}
.legend .key::before{content:"";display:inline-block;width:1em;height:.8em;border:1.5px solid #7b8794;background:#f5f7fa;border-radius:3px;margin-right:.3em;vertical-align:-.05em}
.legend .key-wf-llm::before{background:#2186eb;border-color:#2186eb}.legend .key-wf-ambient::before{background:#3ebd93;border-color:#3ebd93}.legend .key-wf-tool::before{background:#9446ed;border-color:#9446ed}.legend .key-wf-flow::before{background:#f0b429;border-color:#f0b429}.legend .key-wf-other::before{background:#9aa5b1;border-color:#9aa5b1}.legend .key-wf-failed::before{background:#d64545;border-color:#d64545}.legend .key-wf-interrupted::before{background:#e66a6a;border-color:#d64545;border-style:dashed}.legend .key-wf-running::before{background:#2186eb;border-color:#2186eb;opacity:.6}
.legend .key-taken::before{height:0;border-width:1.5px 0 0;border-color:#2186eb;border-top-width:3px;background:none;border-radius:0;vertical-align:.2em}.legend .key-ran::before{border-color:#3ebd93}.legend .key-failed::before{background:#ffe3e3;border-color:#d64545}.legend .key-current::before{background:#fff3c4;border-color:#f0b429;border-width:2.5px}
form.action{display:flex;flex-wrap:wrap;gap:.6em;align-items:flex-end;margin:.5em 0 1em}
.field{display:flex;flex-direction:column;gap:.15em;min-width:12em;flex:1 1 14em}.field label{font-weight:600;font-size:13px}
.field input,.field textarea,.field select{font:inherit;padding:.35em .5em;border:1px solid #9aa5b1;border-radius:5px;background:#fff;color:var(--ink)}
.field textarea{min-height:4.5em;resize:vertical}
form.action button{font:inherit;font-weight:600;padding:.4em 1.1em;border:none;border-radius:5px;background:var(--accent);color:#fff;cursor:pointer}
form.action button:disabled{opacity:.6;cursor:progress}
.field-error{color:#a61b1b;font-size:13px}[aria-invalid=true]{border-color:var(--bad)!important}
.turn h3{margin-top:0}.events{margin:.3em 0;padding-left:1.2em}.ev{margin:.2em 0}.ev pre{margin:.2em 0;max-height:16em}
.ev .role,.ev-question .role{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin-right:.3em}
.ev-error{color:#a61b1b}.ev-answer{list-style:none}
@media (max-width:760px){body{display:block}nav.side{width:auto;height:auto;position:static;display:flex;flex-wrap:nowrap;overflow-x:auto;gap:.2em .4em;padding:.5em;white-space:nowrap;align-items:center}
nav.side form{margin:0}
nav.side h4{display:none}nav.side .brand{padding:0 .4em}main{padding:1em}.grid2{grid-template-columns:1fr}
.kv{grid-template-columns:1fr}.kv dt{margin-top:.4em}
/* On a phone a table's rows read as short blocks (cells flowing, long text wrapping at full width)
   and wide pictures keep a legible size and scroll sideways. */
.scroll>table tr:has(>th){display:none}
.scroll>table tr{display:block;border-bottom:1px solid var(--line);padding:.3em 0}
.scroll>table td{display:inline-block;border:none;padding:.1em .4em;vertical-align:top;max-width:100%}
.picture-box svg.waterfall,.picture-box svg.graph{max-width:none}}
${PICTURES_CSS}`;
