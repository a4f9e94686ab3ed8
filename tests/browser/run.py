#!/usr/bin/env python3
"""run.py - ada's views opened in a real browser (make browser).

Traces examples/demo.c, then with headless Chromium (cdp.py: the DOM is
read again until what a check looks for is there, or 30 s passed):
  - opens the SVG flame graph (`ada-symbolize flame --format svg`) as a
    file:// URL: the DOM holds a frame of each of demo.c's functions and no
    XML parse error; with the URL hash #zoom=evaluate the inline script
    zooms into that frame (its rectangle spans the graph), and zoomed
    deeper, into parse_term, each ancestor (all, evaluate, parse_expr)
    keeps its row, faded;
  - builds tests/browser/diffwork.c and traces it twice, A and B, where
    grow() does ten times the work in B and shrink() a tenth, and opens
    the differential flame graph (`ada-symbolize diff --format svg A B`)
    next to B's own flame graph: from the rectangles' computed fills and
    widths, weighed by calls (--count), grow is deep red, shrink deep blue,
    steady and main (the same calls) white and outlined, every width is
    B's; weighed by time (not with --short: a busy machine's noise), grow
    is red, shrink blue, the widths B's;
  - serves speedscope's built files (npm package, tests/browser/install.sh)
    on 127.0.0.1 and loads ada's Chrome JSON export (`ada-symbolize chrome`)
    through speedscope's #profileURL=, in its sandwich view, whose table of
    functions is in the DOM (the flame charts are drawn on a canvas): the
    main thread's profile lists main, and an export of one worker thread
    (--thread 1) lists the parser's functions; the thread list names all
    three threads; no "Something went wrong" and no alert() (speedscope's
    way to say it cannot import a file);
  - loads the folded stacks (`ada-symbolize flame`) in speedscope too: one
    profile with every function;
  - loads the Chrome JSON export of tests/e2e/progs/blocking.c traced with
    ADA_BLOCKING, ADA_COUNTERS and ADA_ALLOC, which holds counter events
    ("ph":"C") and flows ("s", "f") besides the slices: speedscope shows
    its main thread's functions, without an error.
Screenshots go to BUILD_DIR/*.png (build artefacts, not in git).

  tests/browser/run.py [--short] [BUILD_DIR]     (default build/browser)

--short (make check): no screenshots, no folded stacks, no diff by time;
skipped, with a message, where Chromium or speedscope is not installed.
Ends with the line "N passed, N failed"; exit status 1 if a check failed.
"""
import argparse
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import cdp  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SYM = os.path.join(ROOT, 'bin', 'ada-symbolize')
ADACC = os.path.join(ROOT, 'bin', 'adacc')
# What demo.c calls, thread by thread.
MAIN_FUNCS = ['main']
WORKER_FUNCS = ['evaluate', 'parse_expr', 'parse_term', 'parse_factor', 'parse_number']
SPEEDSCOPE_ERROR = 'Something went wrong'


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=''):
        if ok:
            self.passed += 1
            print(f'ok - {what}')
        else:
            self.failed += 1
            print(f'FAIL - {what}' + (f': {detail}' if detail else ''))
        return ok

    def end(self):
        print(f'{self.passed} passed, {self.failed} failed')
        return 1 if self.failed else 0


def run(argv, env=None, **kw):
    """Runs argv; its stdout, or an exception naming the command and its stderr."""
    res = subprocess.run(argv, env=env, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise RuntimeError(f'{" ".join(argv)}: exit {res.returncode}: {res.stderr.strip()}')
    return res.stdout


def chromium_binary():
    return shutil.which('chromium') or shutil.which('chromium-browser')


class Server:
    """speedscope's files and the profiles, on 127.0.0.1, a port the kernel picks."""

    def __init__(self, directory):
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass
        handler = functools.partial(Quiet, directory=directory)
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self.url = f'http://127.0.0.1:{self.httpd.server_address[1]}'
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def ada_env():
    """The environment without ADA_* settings, so that a run traces as
    the test asks, whatever the caller's shell set."""
    return {k: v for k, v in os.environ.items() if not k.startswith('ADA_')}


def trace_demo(build):
    """Builds and runs examples/demo.c traced (fentry, library calls too)."""
    env = ada_env()
    exe = os.path.join(build, 'demo')
    trace = os.path.join(build, 'trace')
    shutil.rmtree(trace, ignore_errors=True)
    run([ADACC, '-g', '-O0', '-pthread', '-o', exe, os.path.join(ROOT, 'examples', 'demo.c')], env)
    run([exe], dict(env, ADA_OUTPUT=trace), cwd=build)
    return trace


def trace_lanes(build):
    """tests/e2e/progs/blocking.c traced with waits, counters and blocks:
    its Chrome export has counter events and flows."""
    env = ada_env()
    exe = os.path.join(build, 'blocking')
    trace = os.path.join(build, 'trace-lanes')
    shutil.rmtree(trace, ignore_errors=True)
    run([ADACC, '-O2', '-pthread', '-o', exe,
         os.path.join(ROOT, 'tests', 'e2e', 'progs', 'blocking.c')], env)
    run([exe], dict(env, ADA_OUTPUT=trace, ADA_BLOCKING='1', ADA_COUNTERS='1', ADA_ALLOC='1'),
        cwd=build)
    return trace


def chrome_json(trace, out, extra):
    """ada's Chrome JSON export into out, as a user makes it (by default
    without args, which speedscope would show after each name and tell
    calls apart by; --args adds registers and file:line for Perfetto)."""
    run([SYM, 'chrome'] + extra + ['-o', out, trace])


ZOOMED = (r'data-n="evaluate"[^>]*><title>[^<]*</title><rect x="10.0" y="[0-9.]+" '
          r'width="1180.0"')


def svg_checks(c, browser, build, trace, short):
    svg = os.path.join(build, 'flame.svg')
    run([SYM, 'flame', '--format', 'svg', '-o', svg, trace])
    url = 'file://' + svg
    dom, err = browser.open(url, lambda d: 'data-n="all"' in d or 'parsererror' in d)
    if not c.check(err is None, 'Chromium opens the SVG flame graph', err):
        return
    c.check('parsererror' not in dom and 'This page contains the following errors' not in dom,
            'the SVG parses', dom[:300])
    for name in MAIN_FUNCS + ['evaluate', 'parse_expr']:
        c.check(f'data-n="{name}"' in dom, f'the flame graph has a frame of {name}')
    if not short:
        png = os.path.join(build, 'flame.png')
        browser.screenshot(png)
        print(f'screenshot {png}')
    # The inline script: #zoom=evaluate widens that frame to the whole graph.
    dom, err = browser.open(url + '#zoom=evaluate', lambda d: re.search(ZOOMED, d))
    c.check(err is None, 'zoomed into evaluate, its frame spans the graph', err)
    # Zoomed deeper, every ancestor's row stays, faded (positions rounded
    # to three decimals once hid one and left a blank row).
    dom, err = browser.open(url + '#zoom=parse_term', lambda d: 'data-n="parse_term"' in d)
    for name in ('all', 'evaluate', 'parse_expr'):
        c.check(re.search(rf'data-n="{name}"[^>]*style="opacity: 0.6;"', dom) is not None,
                f'zoomed into parse_term, its ancestor {name} shows faded', err)
    if not short:
        png = os.path.join(build, 'flame-zoom.png')
        browser.screenshot(png)
        print(f'screenshot {png}')


# tests/browser/diffwork.c's arguments (units of work of grow, shrink,
# steady) for trace A and trace B.
DIFF_RUNS = (('diff-a', ['4', '40', '8']), ('diff-b', ['40', '4', '8']))

# Each frame of a flame graph as the browser has it: its name, the fill it
# paints (computed style, "rgb(R, G, B)"), its rectangle's width and the
# outline it draws ("none" or a colour).
FRAMES = """Array.from(document.querySelectorAll('g.f')).map(function (g) {
  var r = g.querySelector('rect'), s = getComputedStyle(r);
  return [g.getAttribute('data-n'), s.fill, +r.getAttribute('width'), s.stroke];
})"""


def trace_diffwork(build):
    """Traces A and B of diffwork.c: grow does ten times the work in B, shrink
    a tenth, steady the same."""
    env = ada_env()
    exe = os.path.join(build, 'diffwork')
    run([ADACC, '-g', '-O0', '-o', exe, os.path.join(ROOT, 'tests', 'browser', 'diffwork.c')], env)
    traces = []
    for name, units in DIFF_RUNS:
        trace = os.path.join(build, name)
        shutil.rmtree(trace, ignore_errors=True)
        run([exe] + units, dict(env, ADA_OUTPUT=trace), cwd=build)
        traces.append(trace)
    return traces


def tint(fill):
    """A differential frame's fill, rgb(255, 255-k, 255-k) for a frame that
    grew, rgb(255-k, 255-k, 255) for one that shrank (flame_svg.c's
    diff_colour): ('red', k), ('blue', k), ('white', 0), or ('none', 0) for
    no colour (a frame that is not there)."""
    rgb = [int(v) for v in re.findall(r'\d+', fill or '')[:3]]
    if len(rgb) < 3:
        return 'none', 0
    r, _, b = rgb
    return ('red', r - b) if r > b else ('blue', b - r) if b > r else ('white', 0)


def svg_frames(c, browser, svg, what):
    """{name: [(fill, width, stroke), ...]} of the SVG as Chromium draws it,
    or None."""
    _, err = browser.open('file://' + svg, lambda d: 'data-n="all"' in d or 'parsererror' in d)
    frames = browser.evaluate(FRAMES) if err is None else None
    if not c.check(bool(frames), f'Chromium opens {what}', err):
        return None
    out = {}
    for name, fill, width, stroke in frames:
        out.setdefault(name, []).append((fill, width, stroke))
    return out


def diff_checks(c, browser, build, short):
    """The differential flame graph: B's widths, grow red, shrink blue,
    steady neither. Weighed by calls (--count) the colours are exact (the
    calls of steady and main are the same in A and B); by time, which the
    machine's other work makes vary by a half between runs, only the
    direction of grow's and shrink's tenfold changes is sure, and --short
    (make check, on a busy machine too) leaves it out."""
    a, b = trace_diffwork(build)
    for weigh, png in (['--count'], 'diff-count.png'), ([], 'diff.png'):
        if short and not weigh:
            continue
        by = 'calls' if weigh else 'time'
        diff = os.path.join(build, f'diff-{by}.svg')
        flame_b = os.path.join(build, f'flame-b-{by}.svg')
        run([SYM, 'diff', '--format', 'svg'] + weigh + ['-o', diff, a, b])
        run([SYM, 'flame', '--format', 'svg'] + weigh + ['-o', flame_b, b])
        fb = svg_frames(c, browser, flame_b, f"trace B's flame graph ({by})")
        fd = svg_frames(c, browser, diff, f'the differential flame graph ({by})')
        if fb is None or fd is None:
            continue
        if not short:
            browser.screenshot(os.path.join(build, png))
            print(f'screenshot {os.path.join(build, png)}')
        # The frames of one call each (unit() has three, one under each).
        for name in ('main', 'grow', 'shrink', 'steady'):
            got, want = [f[1] for f in fd.get(name, [])], [f[1] for f in fb.get(name, [])]
            c.check(len(got) == 1 and got == want,
                    f"the diff ({by}) draws {name} as wide as B's flame graph does",
                    f'diff {got}, B {want}')
        fill = {name: fd[name][0][0] for name in ('main', 'grow', 'shrink', 'steady')
                if name in fd}
        # B's shape: grow 41 calls, shrink 5; by time grow is the wider
        # (by less than ten times on a busy machine).
        width = {name: fd[name][0][1] for name in ('grow', 'shrink') if name in fd}
        c.check(width.get('grow', 0) > (5 if weigh else 1) * width.get('shrink', 1e9),
                f"the diff ({by}) has B's shape: grow (x10 work in B) wider than shrink", width)
        # By calls the largest change, grow's and shrink's, is the deepest
        # colour, 200 of 255; by time either may be the smaller.
        deep = 150 if weigh else 1
        hue, k = tint(fill.get('grow', ''))
        c.check(hue == 'red' and k >= deep, f'the diff ({by}) fills grow, which grew, red',
                fill.get('grow'))
        hue, k = tint(fill.get('shrink', ''))
        c.check(hue == 'blue' and k >= deep, f'the diff ({by}) fills shrink, which shrank, blue',
                fill.get('shrink'))
        if weigh:
            for name in ('steady', 'main'):
                c.check(tint(fill.get(name, '')) == ('white', 0),
                        f'the diff ({by}) fills {name}, the same calls in A and B, white',
                        fill.get(name))
            # White on the near-white background: an outline shows the frame.
            stroke = fd['steady'][0][2] if 'steady' in fd else 'none'
            c.check(stroke not in ('none', ''), f'the diff ({by}) outlines steady, a white frame',
                    stroke)


def speedscope_checks(c, browser, build, trace, short):
    release = os.path.join(build, 'node_modules', 'speedscope', 'dist', 'release')
    site = os.path.join(build, 'site')
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(release, site)
    chrome_json(trace, os.path.join(site, 'demo.json'), [])
    # One thread, as a speedscope user may export it (one row per function).
    chrome_json(trace, os.path.join(site, 'demo-thread1.json'), ['--thread', '1'])
    run([SYM, 'flame', '-o', os.path.join(site, 'demo.folded'), trace])
    chrome_json(trace_lanes(build), os.path.join(site, 'lanes.json'), [])
    server = Server(site)
    try:
        def page(profile, view):
            return f'{server.url}/index.html#profileURL={server.url}/{profile}' + \
                   (f'&view={view}' if view else '')

        def listed(dom, name, exact=False):
            suffix = '' if exact else '( [^<]*)?'
            return re.search(rf'>{re.escape(name)}{suffix}</', dom) is not None

        def load(profile, funcs, what, view='sandwich', png=None, exact=False):
            dom, err = browser.open(page(profile, view), lambda d: SPEEDSCOPE_ERROR in d or all(
                listed(d, name, exact) for name in funcs))
            text = re.sub(r'\s+', ' ', re.sub(r'<[^>]*>', ' ', dom))[:600]
            c.check(err is None, f'speedscope shows {what}', f'{err}; the page reads: {text}')
            c.check(SPEEDSCOPE_ERROR not in dom, f'speedscope shows no error for {what}')
            c.check(f'<title>{profile} - speedscope</title>' in dom, f'speedscope names {profile}')
            for name in funcs:
                c.check(listed(dom, name, exact), f'speedscope lists {name} ({what})')
            if png and not short:
                browser.screenshot(os.path.join(build, png))
                print(f'screenshot {os.path.join(build, png)}')
            return dom

        dom = load('demo.json', MAIN_FUNCS, 'the Chrome JSON export, names as they are',
                   png='speedscope-sandwich.png', exact=True)
        threads = re.findall(r'<tr title="([^"]*)"', dom)
        c.check(len(threads) == 3, 'speedscope lists the three threads', threads)
        load('demo-thread1.json', WORKER_FUNCS, 'the export of thread 1, one row a function',
             png='speedscope-thread1-sandwich.png', exact=True)
        load('lanes.json', ['main', 'pthread_mutex_lock'],
             'an export with counter events and flows', exact=True)
        if not short:
            load('demo.folded', MAIN_FUNCS + WORKER_FUNCS, 'the folded stacks')
            # The flame charts (a canvas): for the eye only, the sandwich
            # table of the same load says the profile is there.
            for profile, png in (('demo.json', 'speedscope.png'),
                                 ('demo-thread1.json', 'speedscope-thread1.png')):
                browser.open(page(profile, None), lambda d: f'<title>{profile} - speedscope' in d)
                time.sleep(1)  # the canvas is drawn on the next animation frames
                browser.screenshot(os.path.join(build, png))
                print(f'screenshot {os.path.join(build, png)}')
    finally:
        server.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--short', action='store_true', help="make check's part")
    ap.add_argument('build', nargs='?', default=os.path.join(ROOT, 'build', 'browser'))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    binary = chromium_binary()
    if not binary:
        print('skipped: chromium not installed (make browser installs it)')
        return 0
    have_speedscope = os.path.exists(
        os.path.join(build, 'node_modules', 'speedscope', 'dist', 'release', 'index.html'))
    os.makedirs(build, exist_ok=True)
    c = Checks()
    profile = tempfile.mkdtemp(prefix='chromium-profile-', dir=build)
    browser = cdp.Browser(binary, profile)
    try:
        trace = trace_demo(build)
        svg_checks(c, browser, build, trace, args.short)
        diff_checks(c, browser, build, args.short)
        if have_speedscope:
            speedscope_checks(c, browser, build, trace, args.short)
        elif args.short:
            print('skipped: speedscope not installed (make browser installs it)')
        else:
            c.check(False, 'speedscope is installed', 'run tests/browser/install.sh')
    except RuntimeError as e:
        c.check(False, 'the trace and its exports', str(e))
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return c.end()


if __name__ == '__main__':
    sys.exit(main())
