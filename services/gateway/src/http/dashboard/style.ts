// The dashboard's one stylesheet, sent in each page's nonce'd <style> (the CSP allows nothing else).
export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
a{color:#1d4ed8}
a:focus,button:focus,input:focus,select:focus,summary:focus,.scroll:focus{outline:3px solid #2563eb;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
.mode{margin:0;padding:.4rem 1rem;font-weight:700;letter-spacing:.04em;text-align:center}
.mode.test{background:#fff4ce;color:#5c4500}
.mode.live{background:#14532d;color:#fff}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;
  padding:.75rem 1rem;background:#fff;border-bottom:1px solid #ddd}
header.top p{margin:0;font-weight:600}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
section.card,div.card{background:#fff;border-radius:10px;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.scroll{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
caption{text-align:left;font-weight:700;padding:.25rem 0 .5rem}
th,td{padding:.4rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #e5e7eb}
thead th{font-weight:700;background:#f9fafb}
td.num,th.num{text-align:right;white-space:nowrap}
code{font-size:.85rem;word-break:break-all}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.5rem 1rem;align-items:end}
label{display:block;font-weight:600;margin:0 0 .2rem}
input,select{width:100%;padding:.5rem;font-size:1rem;border:1px solid #6b7280;border-radius:6px;background:#fff}
button,.button{display:inline-block;padding:.55rem 1rem;font-size:1rem;font-weight:700;color:#fff;background:#1d4ed8;
  border:0;border-radius:6px;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:#1d4ed8;border:1px solid #1d4ed8}
.status{display:inline-block;padding:0 .45rem;border-radius:5px;font-size:.85rem;font-weight:600;background:#e5e7eb;color:#111}
.status.succeeded,.status.completed,.status.paid{background:#dcfce7;color:#14532d}
.status.failed,.status.expired,.status.cancelled{background:#fee2e2;color:#7f1d1d}
.status.pending,.status.open,.status.unpaid,.status.partially_paid{background:#e0e7ff;color:#1e3a8a}
.notice{border-radius:8px;padding:.75rem;margin:0 0 1rem;background:#e6f0ff;color:#1e3a8a}
.notice.error{background:#fde8e8;color:#7f1d1d}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1rem;border-left:3px solid #d1d5db}
ol.timeline li{margin:0 0 .75rem;padding-left:.5rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;word-break:break-word}
.pager{display:flex;gap:1rem;align-items:center;margin-top:.75rem}
figure{margin:0 0 .75rem}
svg.chart{width:100%;height:auto;max-width:100%}
.c-label{font-size:12px;fill:#1a1a1a}
.c-track{fill:#e5e7eb}
.c-ok{fill:#15803d}
.c-warn{fill:#b45309}
.c-bad{fill:#b91c1c}
.c-axis{stroke:#6b7280}
.c-net{fill:#111827}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
ul.plain{list-style:none;margin:0;padding:0}
fieldset{border:1px solid #d1d5db;border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
input[type=checkbox]{width:auto}
.status.enabled{background:#dcfce7;color:#14532d}
.status.disabled{background:#fee2e2;color:#7f1d1d}
@media (max-width:600px){main{padding:.5rem}section.card,div.card{padding:.75rem}th,td{padding:.35rem .3rem}.hide-narrow{display:none}}
`;
