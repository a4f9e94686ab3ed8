"""cdp.py - headless Chromium driven over the DevTools protocol, for run.py.

One browser for all pages, talked to through --remote-debugging-pipe (the
protocol's JSON messages, each ended by a NUL byte, on the browser's file
descriptors 3 and 4): no port, no websocket, Python's standard library
only. A page is loaded, then its DOM is read again until the test's
condition holds or a deadline passes: what a page shows after its scripts
ran (speedscope renders its tables after the profile is parsed, at a time
--dump-dom does not wait for) is waited for, not guessed. An alert() the
page opens (speedscope reports a file it cannot import that way) is
answered and returned as the page's error.
"""
import base64
import fcntl
import json
import os
import select
import signal
import subprocess
import time

DOM = 'document.documentElement ? document.documentElement.outerHTML : ""'


def _above(fd, n):
    """fd moved to a descriptor number above n."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, n + 1)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, binary, profile_dir, width=1400, height=900):
        cmd_r, self.cmd_w = os.pipe()   # our commands: the browser's fd 3
        self.resp_r, resp_w = os.pipe()  # its answers and events: its fd 4
        # The browser's ends above 4, so that moving them to 3 and 4 and
        # closing them does not close what was just put there.
        cmd_r, resp_w = (_above(fd, 4) for fd in (cmd_r, resp_w))
        argv = ['bash', '-c', f'exec "$@" 3<&{cmd_r} 4>&{resp_w} {cmd_r}<&- {resp_w}>&-', 'bash',
                binary, '--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
                '--no-first-run', '--remote-debugging-pipe', f'--user-data-dir={profile_dir}',
                f'--window-size={width},{height}', 'about:blank']
        # A process group of its own, so that close() ends its helpers too.
        self.proc = subprocess.Popen(argv, pass_fds=(cmd_r, resp_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        os.close(cmd_r)
        os.close(resp_w)
        self.buf, self.next_id, self.dialogs = b'', 0, []
        target = self.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        self.session = self.call('Target.attachToTarget',
                                 {'targetId': target, 'flatten': True})['sessionId']
        self.call('Page.enable', session=True)
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False},
                  session=True)

    def close(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.resp_r)

    def _message(self, deadline):
        """The next message, or an exception when the deadline passes."""
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.resp_r], [], [], left)[0]:
                raise TimeoutError('Chromium did not answer in time')
            chunk = os.read(self.resp_r, 1 << 20)
            if not chunk:
                raise EOFError('Chromium exited')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def call(self, method, params=None, session=False, timeout=60):
        """Sends one command; its result. A dialog opening meanwhile is
        answered (it would hold every command) and kept in self.dialogs."""
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b'\0')
        deadline = time.monotonic() + timeout
        while True:
            m = self._message(deadline)
            if m.get('method') == 'Page.javascriptDialogOpening':
                self.dialogs.append(m['params'].get('message', ''))
                self.call('Page.handleJavaScriptDialog', {'accept': True}, session=True)
            elif m.get('id') == msg['id']:
                if 'error' in m:
                    raise RuntimeError(f'{method}: {m["error"].get("message")}')
                return m.get('result', {})

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (JSON-able)."""
        return self.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True},
                         session=True)['result'].get('value')

    def dom(self):
        return self.evaluate(DOM) or ''

    def open(self, url, ready, timeout=30):
        """Loads url (from a blank page, so that a new #fragment reloads it)
        and reads its DOM until ready(dom). Returns (dom, None), or (the last
        DOM, what went wrong): an alert's text, or the deadline."""
        self.call('Page.navigate', {'url': 'about:blank'}, session=True)
        self.dialogs = []
        self.call('Page.navigate', {'url': url}, session=True)
        deadline = time.monotonic() + timeout
        while True:
            dom = self.dom()
            if self.dialogs:
                return dom, 'the page said: ' + ' / '.join(self.dialogs)
            if ready(dom):
                return dom, None
            if time.monotonic() > deadline:
                return dom, f'not ready after {timeout} s'
            time.sleep(0.1)

    def screenshot(self, png):
        data = self.call('Page.captureScreenshot', {'format': 'png'}, session=True)['data']
        with open(png, 'wb') as f:
            f.write(base64.b64decode(data))
