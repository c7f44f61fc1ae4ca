// Generic segment detection: segment URLs learned from HLS playlists and DASH manifests, and
// the extension/Range heuristics for pages whose manifests were not seen.
import assert from 'node:assert/strict';
import { manifestKind, parseHls, parseDash, templateMatcher } from '../src/shared/manifests.js';
import { createSegmentDetector } from '../src/shared/segment-detector.js';

const B = 'https://cdn.example/v/';

describe('extension: segment detection', () => {
  it('knows a manifest by its path or its Content-Type', () => {
    assert.equal(manifestKind(`${B}master.m3u8?token=1`, null), 'hls');
    assert.equal(manifestKind(`${B}x`, 'application/vnd.apple.mpegURL; charset=utf-8'), 'hls');
    assert.equal(manifestKind(`${B}stream.mpd`, null), 'dash');
    assert.equal(manifestKind(`${B}get?f=dash`, 'application/dash+xml'), 'dash');
    assert.equal(manifestKind(`${B}seg1.m4s`, 'video/mp4'), null);
  });

  it('HLS: media segments, EXT-X-MAP, EXT-X-BYTERANGE and parts are segments; variants and renditions are playlists; keys are neither', () => {
    const master = [
      '#EXTM3U',
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/en.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="a"',
      '360p/index',
      '#EXT-X-STREAM-INF:BANDWIDTH=2000000',
      'https://other.example/720p.m3u8',
    ].join('\n');
    const m = parseHls(master, `${B}master.m3u8`);
    assert.deepEqual(m.segments, []);
    assert.deepEqual(m.playlists, [`${B}audio/en.m3u8`, `${B}360p/index`, 'https://other.example/720p.m3u8']);
    const media = [
      '#EXTM3U', '#EXT-X-VERSION:7', '#EXT-X-TARGETDURATION:4',
      '#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1"',
      '#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"',
      '#EXTINF:4.0,', '#EXT-X-BYTERANGE:100000@720', 'video.mp4',
      '#EXTINF:4.0,', '#EXT-X-BYTERANGE:90000', 'video.mp4',
      '#EXT-X-PART:DURATION=1.0,URI="part7.m4s"',
      '#EXTINF:4.0,', 'seg3.ts?sig=abc#frag',
      '#EXT-X-ENDLIST',
    ].join('\r\n');
    const s = parseHls(media, `${B}360p/index`);
    assert.deepEqual(s.segments, [`${B}360p/init.mp4`, `${B}360p/video.mp4`, `${B}360p/video.mp4`, `${B}360p/part7.m4s`, `${B}360p/seg3.ts?sig=abc`]);
    assert.deepEqual(parseHls('not a playlist\nseg.ts', B).segments, [], 'no #EXTM3U: not HLS');
  });

  it('DASH: SegmentTemplate (inherited, $RepresentationID$, $Number%05d$, $Time$) with nested BaseURLs becomes URL matchers', () => {
    const mpd = `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static">
  <BaseURL>https://media.example/content/</BaseURL>
  <Period id="p0">
    <AdaptationSet mimeType="video/mp4">
      <SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/seg-$Number%05d$.m4s?a=1&amp;b=2" startNumber="1"/>
      <Representation id="v360" bandwidth="800000"/>
      <Representation id="v720" bandwidth="2000000"><BaseURL>hd/</BaseURL></Representation>
    </AdaptationSet>
    <AdaptationSet mimeType="audio/mp4">
      <Representation id="a1"><SegmentTemplate media="audio_$Time$.m4a"><SegmentTimeline><S t="0" d="10"/></SegmentTimeline></SegmentTemplate></Representation>
    </AdaptationSet>
  </Period>
</MPD>`;
    const d = parseDash(mpd, `${B}stream.mpd`);
    const hit = (u) => d.templates.some((re) => re.test(u));
    assert.ok(hit('https://media.example/content/v360/init.mp4'));
    assert.ok(hit('https://media.example/content/v360/seg-00017.m4s?a=1&b=2'));
    assert.ok(hit('https://media.example/content/hd/v720/seg-00001.m4s?a=1&b=2'));
    assert.ok(hit('https://media.example/content/audio_123450.m4a'));
    assert.ok(!hit('https://media.example/content/v360/seg-x.m4s?a=1&b=2'), '$Number$ is digits');
    assert.ok(!hit('https://media.example/content/v999/init.mp4'), 'only the representations of the manifest');
    assert.ok(!hit('https://media.example/content/v720/init.mp4'), 'v720 has its own BaseURL');
  });

  it('DASH: SegmentList with mediaRange and SegmentBase with indexRange name the files fetched by Range', () => {
    const mpd = `<MPD><Period><AdaptationSet>
      <Representation id="r1"><BaseURL>r1.mp4</BaseURL><SegmentBase indexRange="800-1200"><Initialization range="0-799"/></SegmentBase></Representation>
      <Representation id="r2"><BaseURL>media/r2.mp4</BaseURL><SegmentList duration="4"><Initialization range="0-600"/>
        <SegmentURL mediaRange="601-90000"/><SegmentURL mediaRange="90001-180000"/></SegmentList></Representation>
      <Representation id="r3"><SegmentList><Initialization sourceURL="r3/init.mp4"/><SegmentURL media="r3/1.m4s"/></SegmentList></Representation>
    </AdaptationSet></Period></MPD>`;
    const d = parseDash(mpd, `${B}list.mpd`);
    assert.deepEqual([...new Set(d.segments)].sort(), [`${B}media/r2.mp4`, `${B}r1.mp4`, `${B}r3/1.m4s`, `${B}r3/init.mp4`].sort());
    assert.ok(!d.segments.includes(`${B}list.mpd`), 'the manifest itself is not a segment');
  });

  it('a template never matches a URL with other text around the placeholders', () => {
    const re = /** @type {RegExp} */ (templateMatcher('seg-$Number$.m4s', B, 'x'));
    assert.ok(re.test(`${B}seg-12.m4s`));
    assert.ok(re.test(`${B}seg-12.m4s?token=a`));
    assert.ok(!re.test(`${B}seg-12.m4s.evil`));
    assert.ok(!re.test(`https://evil.example/v/seg-12.m4s`));
  });

  it('the detector: learned segments first, then media extensions, then Range requests once the page made a MediaSource', () => {
    const det = createSegmentDetector();
    assert.equal(det.segmentReason(`${B}chunk?id=7`, false), null);
    assert.equal(det.segmentReason(`${B}a/seg7.m4s?x=1`, false), 'extension');
    assert.equal(det.segmentReason(`${B}video.MP4`, true), 'extension');
    assert.equal(det.segmentReason(`${B}master.m3u8`, false), null, 'a manifest is never a segment');
    assert.equal(det.segmentReason(`${B}blob`, true), null, 'a Range request without a MediaSource is not taken for media');
    det.noteMediaSource();
    assert.equal(det.segmentReason(`${B}blob`, true), 'range');
    assert.equal(det.segmentReason(`${B}blob`, false), null);
    det.learn('hls', `${B}index.m3u8`, '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nvariant\n');
    assert.equal(det.manifestOf(`${B}variant`, 'text/plain'), 'hls', 'a variant named by its master is a manifest whatever its type');
    det.learn('hls', `${B}variant`, '#EXTM3U\n#EXTINF:4,\nchunk?id=7\n');
    assert.equal(det.segmentReason(`${B}chunk?id=7#t=1`, false), 'manifest');
    assert.equal(det.counts().manifests, 2);
  });

  it('the next segment file: the next in an HLS playlist or a DASH SegmentList, a $Number$ template\'s next number; none for one file\'s ranges or $Time$', () => {
    const det = createSegmentDetector();
    det.learn('hls', `${B}360p/index.m3u8`, [
      '#EXTM3U', '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:4,', 'seg1.ts', '#EXTINF:4,', 'seg2.ts?sig=a', '#EXTINF:4,', 'https://cdn2.example/seg3.ts',
    ].join('\n'));
    assert.equal(det.nextOf(`${B}360p/seg1.ts`), `${B}360p/seg2.ts?sig=a`);
    assert.equal(det.nextOf(`${B}360p/seg2.ts?sig=a#t=0`), 'https://cdn2.example/seg3.ts');
    assert.equal(det.nextOf('https://cdn2.example/seg3.ts'), null, 'the last one: not known yet');
    assert.equal(det.nextOf(`${B}360p/init.mp4`), null, 'the init section is not in the play order (and a live playlist starts near its end)');
    det.learn('hls', `${B}one/index.m3u8`, '#EXTM3U\n#EXTINF:4,\n#EXT-X-BYTERANGE:1000@0\nv.mp4\n#EXTINF:4,\n#EXT-X-BYTERANGE:1000\nv.mp4\n');
    assert.equal(det.nextOf(`${B}one/v.mp4`), null, 'one file\'s next range is not another file');
    det.learn('dash', `${B}list.mpd`, `<MPD><Period><AdaptationSet><Representation id="r3"><SegmentList>
      <Initialization sourceURL="r3/init.mp4"/><SegmentURL media="r3/1.m4s"/><SegmentURL media="r3/2.m4s"/></SegmentList></Representation></AdaptationSet></Period></MPD>`);
    assert.equal(det.nextOf(`${B}r3/1.m4s`), `${B}r3/2.m4s`);
    det.learn('dash', `${B}tpl.mpd`, `<MPD><Period><AdaptationSet>
      <SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/seg-$Number%05d$.m4s?a=1" startNumber="1"/>
      <Representation id="v1"/>
      <Representation id="a1"><SegmentTemplate media="a1/$Number$.m4a"/></Representation>
      <Representation id="t1"><SegmentTemplate media="t1/$Time$.m4s"/></Representation>
    </AdaptationSet></Period></MPD>`);
    assert.equal(det.nextOf(`${B}v1/seg-00009.m4s?a=1`), `${B}v1/seg-00010.m4s?a=1`);
    assert.equal(det.nextOf(`${B}v1/seg-99999.m4s?a=1`), `${B}v1/seg-100000.m4s?a=1`);
    assert.equal(det.nextOf(`${B}a1/9.m4a`), `${B}a1/10.m4a`);
    assert.equal(det.nextOf(`${B}t1/90000.m4s`), null, '$Time$ needs the timeline');
    assert.equal(det.nextOf(`${B}v1/init.mp4`), null, 'the player started: an init now is a rendition switch');
    assert.equal(det.nextOf(`${B}elsewhere/seg-00001.m4s`), null);
  });

  it('a VOD rendition\'s init section is followed by its first media segment; not in a live stream, and not in one file', () => {
    const vod = ['#EXTM3U', '#EXT-X-PLAYLIST-TYPE:VOD', '#EXT-X-MAP:URI="init.mp4"', '#EXTINF:4,', 'seg1.m4s', '#EXTINF:4,', 'seg2.m4s', '#EXT-X-ENDLIST'];
    assert.deepEqual(parseHls(vod.join('\n'), `${B}a/index.m3u8`).starts, [[`${B}a/init.mp4`, `${B}a/seg1.m4s`]]);
    assert.deepEqual(parseHls(vod.filter((l) => !/VOD|ENDLIST/.test(l)).join('\n'), `${B}a/index.m3u8`).starts, [], 'live: starts near the end');
    assert.deepEqual(parseHls(['#EXTM3U', '#EXT-X-MAP:URI="v.mp4",BYTERANGE="720@0"', '#EXTINF:4,', '#EXT-X-BYTERANGE:1000@720', 'v.mp4', '#EXT-X-ENDLIST'].join('\n'), B).starts,
      [], 'one file: its next range is the proxy\'s read-ahead');
    assert.deepEqual(parseHls(['#EXTM3U', '#EXT-X-MAP:URI="all.mp4",BYTERANGE="720@0"', '#EXTINF:4,', 's1.m4s', '#EXT-X-ENDLIST'].join('\n'), B).starts,
      [], 'an init section that is a range: of a file that may hold the whole stream, never fetched whole');
    const mpd = (type) => `<MPD type="${type}"><BaseURL>https://media.example/c/</BaseURL><Period>
      <AdaptationSet><SegmentTemplate initialization="$RepresentationID$/init-$Bandwidth$.mp4" media="$RepresentationID$/seg-$Number%05d$.m4s?a=1&amp;b=2" startNumber="7"/>
        <Representation id="v360" bandwidth="800000"/><Representation id="v720" bandwidth="2000000"><BaseURL>hd/</BaseURL></Representation></AdaptationSet>
      <AdaptationSet><SegmentTemplate initialization="a/init.mp4" media="a/$Number$.m4a"/><Representation id="a1"/></AdaptationSet>
      <AdaptationSet><SegmentTemplate initialization="t/init.mp4" media="t/$Time$.m4s"/><Representation id="t1"/></AdaptationSet>
      <AdaptationSet><Representation id="r3"><SegmentList><Initialization sourceURL="r3/init.mp4"/><SegmentURL media="r3/1.m4s"/></SegmentList></Representation></AdaptationSet>
      <AdaptationSet><Representation id="r4"><SegmentList><Initialization sourceURL="r4/all.mp4" range="0-700"/><SegmentURL media="r4/1.m4s"/></SegmentList></Representation></AdaptationSet>
    </Period></MPD>`;
    assert.deepEqual(parseDash(mpd('static'), `${B}s.mpd`).starts, [
      ['https://media.example/c/v360/init-800000.mp4', 'https://media.example/c/v360/seg-00007.m4s?a=1&b=2'],
      ['https://media.example/c/hd/v720/init-2000000.mp4', 'https://media.example/c/hd/v720/seg-00007.m4s?a=1&b=2'],
      ['https://media.example/c/a/init.mp4', 'https://media.example/c/a/1.m4a'],
      ['https://media.example/c/r3/init.mp4', 'https://media.example/c/r3/1.m4s'],
    ], 'startNumber inherited (default 1), $Bandwidth$ filled, $Time$ unknown here, an init range never fetched whole');
    assert.deepEqual(parseDash(mpd('dynamic'), `${B}s.mpd`).starts, [], 'live: starts near the edge');
  });

  it('a VOD stream\'s init sections, to prefetch: files, and byte ranges of single-file streams; none for live streams', () => {
    const hls = (lines) => parseHls(['#EXTM3U', ...lines, '#EXTINF:4,', '#EXT-X-BYTERANGE:1000@1344', 'v.mp4', '#EXT-X-ENDLIST'].join('\n'), `${B}a/index.m3u8`).inits;
    assert.deepEqual(hls(['#EXT-X-MAP:URI="v.mp4",BYTERANGE="1344@0"']), [{ url: `${B}a/v.mp4`, range: { start: 0, end: 1343 } }]);
    assert.deepEqual(hls(['#EXT-X-MAP:URI="init.mp4"']), [{ url: `${B}a/init.mp4`, range: null }]);
    assert.deepEqual(hls(['#EXT-X-MAP:URI="v.mp4",BYTERANGE="1344"']), [], 'a range without its offset: not known');
    assert.deepEqual(parseHls('#EXTM3U\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:4,\ns1.m4s\n', B).inits, [], 'live');
    const mpd = (type) => `<MPD type="${type}"><Period><AdaptationSet>
      <SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number$.m4s"/><Representation id="v1"/></AdaptationSet>
      <AdaptationSet><Representation id="r1"><BaseURL>r1.mp4</BaseURL><SegmentBase indexRange="800-1200"><Initialization range="0-799"/></SegmentBase></Representation>
      <Representation id="r2"><BaseURL>r2.mp4</BaseURL><SegmentList><Initialization range="0-600"/><SegmentURL mediaRange="601-9000"/></SegmentList></Representation>
      <Representation id="r3"><SegmentList><Initialization sourceURL="r3/init.mp4"/><SegmentURL media="r3/1.m4s"/></SegmentList></Representation>
      <Representation id="r4"><BaseURL>r4.mp4</BaseURL><SegmentBase><Initialization range="x"/></SegmentBase></Representation></AdaptationSet></Period></MPD>`;
    assert.deepEqual(parseDash(mpd('static'), `${B}s.mpd`).inits, [
      { url: `${B}v1/init.mp4`, range: null },
      { url: `${B}r1.mp4`, range: { start: 0, end: 799 } },
      { url: `${B}r2.mp4`, range: { start: 0, end: 600 } },
      { url: `${B}r3/init.mp4`, range: null },
    ]);
    assert.deepEqual(parseDash(mpd('dynamic'), `${B}s.mpd`).inits, []);
  });

  it('init sections come in turns from each AdaptationSet: the first 16 of a 20-rendition video ladder keep the audio\'s', () => {
    const reps = (prefix, n) => Array.from({ length: n }, (_, i) => `<Representation id="${prefix}${i + 1}"/>`).join('');
    const mpd = `<MPD type="static"><Period>
      <AdaptationSet contentType="video"><SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number$.m4s"/>${reps('v', 20)}</AdaptationSet>
      <AdaptationSet contentType="audio"><SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number$.m4s"/>${reps('a', 2)}</AdaptationSet>
    </Period></MPD>`;
    const urls = parseDash(mpd, `${B}s.mpd`).inits.map((x) => x.url.slice(B.length));
    assert.equal(urls.length, 22);
    assert.deepEqual(urls.slice(0, 5), ['v1/init.mp4', 'a1/init.mp4', 'v2/init.mp4', 'a2/init.mp4', 'v3/init.mp4']);
    assert.deepEqual(urls.slice(-1), ['v20/init.mp4']);
  });

  it('the detector hints a first media segment only while the player starts: an init asked after a media segment is a rendition switch', () => {
    const det = createSegmentDetector();
    det.learn('dash', `${B}s.mpd`, `<MPD><Period><AdaptationSet><SegmentTemplate initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number$.m4s"/>
      <Representation id="v1"/><Representation id="v2"/></AdaptationSet>
      <AdaptationSet><SegmentTemplate initialization="a/init.mp4" media="a/$Number$.m4a"/><Representation id="a"/></AdaptationSet></Period></MPD>`);
    assert.equal(det.nextOf(`${B}v1/init.mp4`), `${B}v1/1.m4s`);
    assert.equal(det.nextOf(`${B}a/init.mp4`), `${B}a/1.m4a`, 'audio and video start together');
    assert.equal(det.nextOf(`${B}v1/1.m4s`), `${B}v1/2.m4s`);
    assert.equal(det.nextOf(`${B}v2/init.mp4`), null, 'a switch to v2 goes on from the playing position');
    assert.equal(det.counts().starts, 3);
  });
});
