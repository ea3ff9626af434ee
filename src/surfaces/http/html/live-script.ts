/**
 * The one progressive-enhancement script: a page with a `[data-live-src]` element subscribes to that
 * SSE stream and, as events arrive, moves the graph highlight at once and re-reads the page to swap
 * its `[data-live-region]` parts (status, rows, pictures) without reloading. When the stream is quiet
 * for 3 s it re-reads anyway (a run executed by an engine whose events this server does not see still
 * shows its progress). A `text_delta` event (an agent's answer as the model streams it) is appended as
 * text to the page's `[data-live-text]` box at once, with no re-read; the box empties when the page
 * stops being live (the stored answer is then in the re-read turns). The page stops once the re-read
 * page is no longer live. `data-live-events` on <html> counts the events received, `data-live-reads`
 * the re-reads. An idle page with a `[data-live-watch]` element (a bounded JSON list and the
 * `data-live-key`:status token the page was drawn from) polls that list every 4 s while the tab is
 * visible and no stream is open; when the token differs it re-reads the page's regions
 * (`data-live-watched` counts those) and follows the stream the page now names — so a world's page
 * picks up a turn started anywhere, and home shows runs start and finish. A form being filled in
 * (`data-dirty`: typed into, being sent, or sent back refused with its errors) keeps its live region
 * as it is until it is sent and answered: a re-read landing while a form is sent cannot replace the
 * form its refusal is to be shown in. Without JavaScript the page is complete, just not live.
 */
export const LIVE_SCRIPT = `(function(){
var root=document.documentElement,es=null,timer=null,seen=0,reads=0,last=Date.now(),done=false,quiet=null;
function parse(t){var d=new DOMParser().parseFromString(t,'text/html');d.querySelectorAll('noscript').forEach(function(n){n.remove();});return d;}
function regions(d,all){document.querySelectorAll('[data-live-region]').forEach(function(n){if(!all&&n.querySelector('form[data-dirty]'))return;var m=d.querySelector('[data-live-region="'+n.getAttribute('data-live-region')+'"]');if(m)n.replaceWith(document.importNode(m,true));});}
function stop(){done=true;if(es)es.close();es=null;clearInterval(quiet);streamed(null);root.setAttribute('data-live','done');}
function streamed(d){var t=document.querySelector('[data-live-text]');if(!t)return;if(d===null){t.textContent='';t.hidden=true;return;}t.hidden=false;t.appendChild(document.createTextNode(d));}
function swap(d){regions(d);if(!d.querySelector('[data-live-src]'))stop();}
function refresh(){timer=null;last=Date.now();fetch(location.href,{headers:{accept:'text/html'},credentials:'same-origin'}).then(function(r){if(r.ok)return r.text().then(function(t){swap(parse(t));root.setAttribute('data-live-reads',String(++reads));});}).catch(function(){});}
function soon(){if(!timer&&!done)timer=setTimeout(refresh,150);}
function count(){seen++;root.setAttribute('data-live-events',String(seen));}
function highlight(id){document.querySelectorAll('svg .node.current').forEach(function(n){n.classList.remove('current');});
var n=document.querySelector('svg [data-node-id="'+CSS.escape(id)+'"]');if(n)n.classList.add('current');}
function follow(){var box=document.querySelector('[data-live-src]');if(!box||!window.EventSource||es)return;done=false;last=Date.now();streamed(null);
es=new EventSource(box.getAttribute('data-live-src'));
es.addEventListener('node.started',function(e){count();try{highlight(JSON.parse(e.data).node_id);}catch(_){}soon();});
es.addEventListener('text_delta',function(e){try{streamed(String(JSON.parse(e.data).delta));}catch(_){}});
var names=(box.getAttribute('data-live-events')||'').split(' ').concat(['run.updated','node.finished','node.updated','contract.transitioned','artifact.persisted','resync']);
names.forEach(function(t){if(t)es.addEventListener(t,function(){count();soon();});});
es.onmessage=function(){count();soon();};es.onopen=soon;
quiet=setInterval(function(){if(Date.now()-last>3000)soon();},1000);root.setAttribute('data-live','on');}
function forms(d){document.querySelectorAll('form[data-form]').forEach(function(f){var m=d.querySelector('form[data-form="'+f.getAttribute('data-form')+'"]');if(m&&!f.closest('[data-live-region]'))f.replaceWith(document.importNode(m,true));});}
document.addEventListener('submit',function(ev){var f=ev.target;if(!f.matches||!f.matches('form[data-enhance]')||!window.fetch)return;
ev.preventDefault();f.setAttribute('data-dirty','');var b=f.querySelector('[type=submit]');if(b)b.disabled=true;root.setAttribute('data-submitting','on');
fetch(f.action,{method:'POST',body:new URLSearchParams(new FormData(f)),credentials:'same-origin',headers:{accept:'text/html'}}).then(function(r){
var to=new URL(r.url);if(r.ok&&r.redirected&&(to.pathname!==location.pathname)){location.assign(r.url);return;}
return r.text().then(function(t){var d=parse(t);if(r.ok){regions(d,true);forms(d);if(d.querySelector('[data-live-src]')){if(es){soon();}else follow();}}
else{var m=d.querySelector('form[data-form="'+f.getAttribute('data-form')+'"]');if(m){var n=document.importNode(m,true);n.setAttribute('data-dirty','');f.replaceWith(n);var bad=n.querySelector('[aria-invalid=true]');if(bad)bad.focus();}else{document.body.replaceWith(document.importNode(d.body,true));}}});
}).catch(function(){f.submit();}).finally(function(){if(b)b.disabled=false;root.removeAttribute('data-submitting');});});
document.addEventListener('input',function(e){var f=e.target&&e.target.form;if(f)f.setAttribute('data-dirty','');});
function token(j,key){return((j&&j.items)||[]).map(function(i){return String(i[key]==null?'':i[key])+':'+String(i.status==null?'':i.status);}).join(' ');}
function rewatch(){fetch(location.href,{headers:{accept:'text/html'},credentials:'same-origin'}).then(function(r){if(r.ok)return r.text().then(function(t){var d=parse(t);regions(d);
root.setAttribute('data-live-watched',String(Number(root.getAttribute('data-live-watched')||0)+1));if(d.querySelector('[data-live-src]'))follow();});}).catch(function(){});}
function watch(){var w=document.querySelector('[data-live-watch]');if(es||document.hidden||!w)return;
fetch(w.getAttribute('data-live-watch'),{headers:{accept:'application/json'},credentials:'same-origin'}).then(function(r){return r.ok?r.json():null;}).then(function(j){
if(j&&token(j,w.getAttribute('data-live-key'))!==w.getAttribute('data-live-token'))rewatch();}).catch(function(){});}
if(document.querySelector('[data-live-watch]'))setInterval(watch,4000);
follow();
})();`;
