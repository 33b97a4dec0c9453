/// The inline CSS and scripts of the pages (no outside fonts, scripts or images).
enum PageAssets {
    static let sharedStyle = """

    :root{color-scheme:light;--focus:#ffbf00;--ink:#1b1b1b}
    html{scroll-padding-top:9em}
    body{margin:0;font:15px/1.4 system-ui,sans-serif;color:var(--ink);background:#f4f4f4}
    header{position:sticky;top:0;z-index:10;background:#fff;border-bottom:1px solid #ccc;padding:8px 16px}
    h1{font-size:1.25em;margin:0 0 4px}
    h2{font-size:1em;font-weight:600;margin:16px 0 6px;overflow-wrap:anywhere}
    main{padding:0 16px 32px}
    .controls{margin:4px 0}
    input[type=search]{font:inherit;padding:3px 6px;width:min(28em,60vw)}
    select{font:inherit;padding:2px 4px}
    a:focus-visible,button:focus-visible,summary:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--focus);outline-offset:2px;box-shadow:0 0 0 5px #000}
    .skip{position:absolute;left:-9999px;top:8px;z-index:20;background:#000;color:#fff;padding:6px 10px}
    .skip:focus{left:8px}

    """

    static let galleryStyle = """
    nav a{padding:0 3px}
    .sheet{position:relative;margin:0 auto}
    .sheet>img{display:block;width:100%;height:auto}
    .sheet>a{position:absolute;left:calc(var(--x)*100%/var(--pw));top:calc(var(--y)*100%/var(--ph));width:calc(var(--w)*100%/var(--pw));height:calc(var(--h)*100%/var(--ph))}
    .sheet>a:hover,.sheet>a:focus{z-index:2;box-shadow:inset 0 0 0 3px var(--focus)}
    .sheet>a:focus-visible{outline:3px solid #000;outline-offset:0;box-shadow:inset 0 0 0 4px var(--focus)}
    .sheet>a>span{position:absolute;left:0;top:100%;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
    .sheet>a:hover>span,.sheet>a:focus>span{width:max-content;height:auto;max-width:min(40em,90vw);clip-path:none;white-space:normal;overflow-wrap:anywhere;padding:3px 7px;background:#111;color:#fff;font-size:13px;border:1px solid var(--focus)}
    .sheet>a>span>i{display:block;font-style:normal;color:#ddd}
    .sheet>a.out{background:rgb(30 30 30/.82);pointer-events:none}

    """

    static let reviewStyle = """
    .summary{display:flex;flex-wrap:wrap;gap:6px;list-style:none;margin:4px 0;padding:0}
    .summary li,.badge{border-radius:3px;padding:1px 7px;background:#e6e6e6}
    .st-changed,.st-resized{background:#ffe3b3!important}.st-failed,.st-error,.fail{background:#ffc9c9!important}
    .st-added{background:#cfe8ff!important}.st-removed{background:#e5d4ff!important}.st-unchanged{background:#d8f0d8!important}
    .hint{margin:2px 0;color:#555;font-size:.9em}
    .pair{background:#fff;border:1px solid #ccc;margin:10px 0;padding:4px 10px}
    .pair>summary{cursor:pointer;padding:4px 0;overflow-wrap:anywhere}
    .pair .path{font-weight:600;margin-right:6px}.badge{margin-right:4px;font-size:.85em}
    .body{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:flex-start;padding:6px 0}
    .views{flex-basis:100%;display:flex;gap:4px}
    .views button{font:inherit;padding:2px 10px;border:1px solid #888;background:#f4f4f4;border-radius:3px}
    .views button[aria-pressed=true]{background:#1b1b1b;color:#fff}
    .panel{flex:0 1 auto;min-width:0}
    .side{display:flex;flex-wrap:wrap;gap:10px}
    figure{margin:0;max-width:100%}
    .side img{display:block;max-width:100%;height:auto;border:1px solid #bbb;background:#fff}
    figcaption{font-size:.85em;color:#444}
    .crop,.stack{position:relative;overflow:hidden;border:1px solid #bbb;background:#fff}
    .crop img{position:absolute;max-width:none}
    .stack img{position:absolute;left:0;top:0;max-width:none}
    .stack .over{position:absolute;inset:0}
    .slider{display:flex;align-items:center;gap:8px;margin-top:4px}
    .slider input{flex:1;max-width:24em}
    dl{display:grid;grid-template-columns:auto auto;gap:1px 12px;margin:0;font-variant-numeric:tabular-nums}
    dt{color:#555}dd{margin:0}
    .absent{padding:16px;border:1px dashed #999;color:#555}

    """

    static let galleryScript = """

    (function(){
    var filter=document.getElementById('filter'),matches=document.getElementById('matches');
    var tiles=Array.prototype.slice.call(document.querySelectorAll('.sheet>a'));
    var keys=tiles.map(function(a){return a.firstChild.firstChild.nodeValue.toLowerCase();});
    function run(){
    var query=filter.value.toLowerCase(),count=0;
    for(var i=0;i<tiles.length;i++){
    var hit=!query||keys[i].indexOf(query)>=0;if(hit)count++;
    var a=tiles[i];if(a.classList.contains('out')===hit){a.classList.toggle('out',!hit);a.tabIndex=hit?0:-1;}
    }
    matches.textContent=query?count+' of '+tiles.length+' images match':tiles.length+' images';
    }
    filter.addEventListener('input',run);run();
    })();

    """

    static let reviewScript = """

    (function(){
    var data=JSON.parse(document.getElementById('review-data').textContent);
    var list=document.getElementById('pairs'),status=document.getElementById('status');
    var filter=document.getElementById('filter'),matches=document.getElementById('matches');
    function el(tag,attrs,kids){var e=document.createElement(tag);
    for(var k in attrs){if(k==='text')e.textContent=attrs[k];else e.setAttribute(k,attrs[k]);}
    (kids||[]).forEach(function(c){if(c)e.appendChild(c);});return e;}
    function px(v){return v+'px';}
    function pct(a,b){return (a*100/b)+'%';}
    function figure(side,label){
    if(!side)return el('p',{'class':'absent',text:label+': absent'});
    return el('figure',{},[el('img',{src:side[0],width:side[1],height:side[2],alt:label,loading:'lazy'}),
    el('figcaption',{text:label+' · '+side[1]+' × '+side[2]})]);}
    function sideView(p){return el('div',{'class':'side'},[figure(p.b,'baseline'),figure(p.c,'current')]);}
    function diffView(p){
    if(!p.x)return el('p',{'class':'absent',text:'No difference picture on the sheet for this pair.'});
    var page=data.pages[p.x[0]],x=p.x[1],y=p.x[2],w=p.x[3],h=p.x[4];
    var img=el('img',{src:page[0],alt:'difference',loading:'lazy'});
    img.style.width=pct(page[1],w);img.style.left=pct(-x,w);img.style.top=pct(-y,h);
    var crop=el('div',{'class':'crop'},[img]);crop.style.maxWidth=px(w);crop.style.aspectRatio=w+' / '+h;
    return el('figure',{},[crop,el('figcaption',{text:'difference: red differs, yellow anti-aliased'})]);}
    function sliderView(p){
    if(!p.b||!p.c)return el('p',{'class':'absent',text:'The slider needs both sides.'});
    var w=Math.max(p.b[1],p.c[1]),h=Math.max(p.b[2],p.c[2]);
    var under=el('img',{src:p.b[0],alt:'baseline',loading:'lazy'});under.style.width=pct(p.b[1],w);
    var top=el('img',{src:p.c[0],alt:'current',loading:'lazy'});top.style.width=pct(p.c[1],w);
    var over=el('div',{'class':'over'},[top]);over.style.clipPath='inset(0 0 0 50%)';
    var stack=el('div',{'class':'stack'},[under,over]);stack.style.maxWidth=px(w);stack.style.aspectRatio=w+' / '+h;
    var range=el('input',{type:'range',min:0,max:100,value:50,'aria-label':'Slider: baseline left of it, current right'});
    range.addEventListener('input',function(){over.style.clipPath='inset(0 0 0 '+range.value+'%)';});
    return el('div',{},[stack,el('label',{'class':'slider'},[document.createTextNode('baseline'),range,document.createTextNode('current')])]);}
    var views=[['side','Side by side',sideView],['diff','Difference',diffView],['slider','Slider',sliderView]];
    function grouped(n){return String(n).replace(/\\B(?=(\\d{3})+(?!\\d))/g,',');}
    function numbers(p){
    var rows=[['status',p.s],['failed',p.f?'yes':'no'],['diff pixels',grouped(p.d)],['anti-aliased',grouped(p.a)],
    ['diff ratio',(p.r*100).toPrecision(3)+' %'],['baseline',p.b?p.b[1]+' × '+p.b[2]:'absent'],['current',p.c?p.c[1]+' × '+p.c[2]:'absent']];
    if(p.e)rows.push(['reason',p.e]);
    var dl=el('dl',{'class':'numbers'});
    rows.forEach(function(r){dl.appendChild(el('dt',{text:r[0]}));dl.appendChild(el('dd',{text:r[1]}));});return dl;}
    function body(p){
    var buttons=el('div',{'class':'views',role:'group','aria-label':'View'}),panels=[];
    views.forEach(function(v,i){
    var b=el('button',{type:'button','data-view':v[0],'aria-pressed':i===0?'true':'false',text:v[1]});
    var panel=el('div',{'class':'panel','data-view':v[0]},[v[2](p)]);panel.hidden=i!==0;panels.push(panel);
    b.addEventListener('click',function(){
    Array.prototype.forEach.call(buttons.children,function(o,j){o.setAttribute('aria-pressed',j===i?'true':'false');panels[j].hidden=j!==i;});});
    buttons.appendChild(b);});
    return el('div',{'class':'body'},[buttons].concat(panels).concat([numbers(p)]));}
    // A pair's views are built when it is opened or comes within 1000 px of the window, so a
    // page of thousands of pairs loads as fast as one of a few.
    function build(d){if(d.children.length<2)d.appendChild(body(data.pairs[+d.id.slice(5)-1]));if(near)near.unobserve(d);}
    var near=window.IntersectionObserver?new IntersectionObserver(function(entries){
    entries.forEach(function(e){if(e.isIntersecting)build(e.target);});},{rootMargin:'1000px 0px'}):null;
    var items=data.pairs.map(function(p,i){
    var summary=el('summary',{},[el('span',{'class':'path',text:p.p}),el('span',{'class':'badge st-'+p.s,text:p.s}),
    p.f?el('span',{'class':'badge fail',text:'failed'}):null]);
    var d=el('details',{'class':'pair',id:'pair-'+(i+1),'data-status':p.s},[summary]);
    if(p.s==='unchanged')d.addEventListener('toggle',function(){if(d.open)build(d);});
    else{d.open=true;if(near)near.observe(d);else build(d);}
    list.appendChild(d);return {el:d,key:p.p.toLowerCase(),status:p.s,failed:p.f};});
    function run(){
    var want=status.value,query=filter.value.toLowerCase(),count=0;
    items.forEach(function(it){var hit=(!want||(want==='failed'?it.failed:it.status===want))&&(!query||it.key.indexOf(query)>=0);
    it.el.hidden=!hit;if(hit)count++;});
    matches.textContent=count+' of '+items.length+' pairs';}
    status.addEventListener('change',run);filter.addEventListener('input',run);run();
    document.addEventListener('keydown',function(e){
    if(e.key!=='ArrowDown'&&e.key!=='ArrowUp')return;
    if(e.altKey||e.ctrlKey||e.metaKey||/^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName))return;
    var shown=items.filter(function(it){return !it.el.hidden;});if(!shown.length)return;
    var here=document.activeElement&&document.activeElement.closest?document.activeElement.closest('.pair'):null;
    var at=-1;shown.forEach(function(it,i){if(it.el===here)at=i;});
    var next=at<0?0:Math.max(0,Math.min(shown.length-1,at+(e.key==='ArrowDown'?1:-1)));
    e.preventDefault();var s=shown[next].el.querySelector('summary');s.focus();s.scrollIntoView({block:'nearest'});});
    })();

    """
}
