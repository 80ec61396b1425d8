import { escapeHtml as e } from '@checkout/html';
import { formatTimeLeft } from './countdown';

export function pollScript(nonce: string, sessionId: string, version: string, now: Date, locale: string): string {
  // Live without a reload: the countdown ticks every second (corrected by the server's clock), and when /state
  // reports another version (a payment from elsewhere, an expiry, a cancel) the page's own HTML is fetched and its
  // <main> swapped in, so what the customer sees is always what the server renders. At zero it asks at once. The
  // countdown is written in the page's locale's digits, as the server wrote it; the script itself has no words.
  return `<script nonce="${e(nonce)}">
(function(){
  var stateUrl = ${JSON.stringify(`/checkout/${sessionId}/state`)}, pageUrl = ${JSON.stringify(`/checkout/${sessionId}`)};
  var seen = ${JSON.stringify(version)}, skew = ${now.getTime()} - Date.now(), polling = false, timer;
  var formatTimeLeft = ${formatTimeLeft.toString()};
  var clock = [1, 2].map(function(w){ return new Intl.NumberFormat(${JSON.stringify(locale)}, {minimumIntegerDigits: w, useGrouping: false}); });
  function digits(n, width){ return clock[width - 1].format(n); }
  function byTestId(id){ return document.querySelector('[data-testid="' + id + '"]'); }
  function bindMethods(){
    var radios = document.querySelectorAll('input[name=method]');
    function sync(){
      var m = (document.querySelector('input[name=method]:checked') || {}).value;
      document.querySelectorAll('[data-method]').forEach(function(el){ el.hidden = el.getAttribute('data-method') !== m; });
    }
    radios.forEach(function(r){ r.addEventListener('change', sync); });
    sync();
  }
  function tick(){
    var c = byTestId('countdown');
    if (!c) return;
    var left = Date.parse(c.getAttribute('data-expires-at')) - (Date.now() + skew);
    c.textContent = formatTimeLeft(left, digits);
    if (left <= 0 && !c.hasAttribute('data-ended')) { c.setAttribute('data-ended', ''); poll(); }
  }
  function swap(){
    return fetch(pageUrl, {cache: 'no-store', credentials: 'same-origin'})
      .then(function(r){ return r.ok ? r.text() : null; })
      .then(function(html){
      var next = html && new DOMParser().parseFromString(html, 'text/html').querySelector('main');
      var main = document.querySelector('main');
      if (!next || !main) return;
      main.replaceWith(next);
      history.replaceState(null, '', pageUrl);
      var status = byTestId('status');
      var live = document.getElementById('live-status');
      if (status && live) live.textContent = status.textContent;
      bindMethods();
      tick();
    });
  }
  function poll(){
    if (polling) return;
    polling = true;
    clearTimeout(timer);
    fetch(stateUrl, {cache: 'no-store', credentials: 'same-origin'}).then(function(r){ return r.ok ? r.json() : null; })
      .then(function(s){ return s && s.version !== seen ? swap().then(function(){ seen = s.version; return s; }) : s; })
      .catch(function(){ return null; })
      .then(function(s){ polling = false; if (!s || s.status === 'pending') timer = setTimeout(poll, 1500); });
  }
  bindMethods();
  tick();
  setInterval(tick, 1000);
  timer = setTimeout(poll, 1500);
})();
</script>`;
}
