/**
 * The one progressive-enhancement script: a page with a `[data-live-src]` element subscribes to that
 * SSE stream and, as events arrive, moves the graph highlight at once and re-reads the page to swap
 * its `[data-live-region]` parts (status, rows, pictures) without reloading. When the stream is quiet
 * for 3 s it re-reads anyway (a run executed by an engine whose events this server does not see still
 * shows its progress). The page stops once the re-read page is no longer live. `data-live-events` on
 * <html> counts the events received. Without JavaScript the page is complete, just not live.
 */
export const LIVE_SCRIPT = `(function(){
var box=document.querySelector('[data-live-src]');if(!box||!window.EventSource)return;
var root=document.documentElement,es=new EventSource(box.getAttribute('data-live-src')),timer=null,seen=0,last=Date.now(),done=false;
function swap(text){var d=new DOMParser().parseFromString(text,'text/html');
document.querySelectorAll('[data-live-region]').forEach(function(n){var m=d.querySelector('[data-live-region="'+n.getAttribute('data-live-region')+'"]');if(m)n.replaceWith(document.importNode(m,true));});
if(!d.querySelector('[data-live-src]')){done=true;es.close();clearInterval(quiet);root.setAttribute('data-live','done');}}
function refresh(){timer=null;last=Date.now();fetch(location.href,{headers:{accept:'text/html'},credentials:'same-origin'}).then(function(r){return r.text();}).then(swap).catch(function(){});}
function soon(){if(!timer&&!done)timer=setTimeout(refresh,150);}
function count(){seen++;root.setAttribute('data-live-events',String(seen));}
function highlight(id){document.querySelectorAll('svg .node.current').forEach(function(n){n.classList.remove('current');});
var n=document.querySelector('svg [data-node-id="'+CSS.escape(id)+'"]');if(n)n.classList.add('current');}
es.addEventListener('node.started',function(e){count();try{highlight(JSON.parse(e.data).node_id);}catch(_){}soon();});
var names=(box.getAttribute('data-live-events')||'').split(' ').concat(['run.updated','node.finished','node.updated','contract.transitioned','artifact.persisted','resync']);
names.forEach(function(t){if(t)es.addEventListener(t,function(){count();soon();});});
es.onmessage=function(){count();soon();};es.onopen=soon;
var quiet=setInterval(function(){if(Date.now()-last>3000)soon();},1000);root.setAttribute('data-live','on');
})();`;
