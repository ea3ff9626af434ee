/**
 * The one progressive-enhancement script: a page with a `[data-live-src]` element subscribes to that
 * SSE stream and, as events arrive, moves the graph highlight at once and re-reads the page to swap
 * its `[data-live-region]` parts (status, rows, pictures) without reloading. Without JavaScript the
 * page is still complete; it is just not live.
 */
export const LIVE_SCRIPT = `(function(){
var box=document.querySelector('[data-live-src]');if(!box||!window.EventSource)return;
var es=new EventSource(box.getAttribute('data-live-src'));var timer=null;
function swap(text){var d=new DOMParser().parseFromString(text,'text/html');
document.querySelectorAll('[data-live-region]').forEach(function(n){var m=d.querySelector('[data-live-region="'+n.getAttribute('data-live-region')+'"]');if(m)n.replaceWith(document.importNode(m,true));});
if(!d.querySelector('[data-live-src]')){es.close();document.documentElement.setAttribute('data-live','done');}}
function refresh(){timer=null;fetch(location.href,{headers:{accept:'text/html'},credentials:'same-origin'}).then(function(r){return r.text();}).then(swap).catch(function(){});}
function soon(){if(!timer)timer=setTimeout(refresh,200);}
function highlight(id){document.querySelectorAll('svg .node.current').forEach(function(n){n.classList.remove('current');});
var n=document.querySelector('svg [data-node-id="'+CSS.escape(id)+'"]');if(n)n.classList.add('current');}
es.addEventListener('node.started',function(e){try{highlight(JSON.parse(e.data).node_id);}catch(_){}soon();});
var names=(box.getAttribute('data-live-events')||'').split(' ').concat(['run.updated','node.finished','node.updated','contract.transitioned','artifact.persisted','resync']);
names.forEach(function(t){if(t)es.addEventListener(t,soon);});
es.onmessage=soon;es.onopen=soon;document.documentElement.setAttribute('data-live','on');
})();`;
